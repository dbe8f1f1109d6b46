import type { EmbeddingResult } from '../../core/embedding-request.js';
import type { CallContext } from '../provider-adapter.js';
import type { EmbeddingAdapter } from '../retrieval-adapter.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { readJsonObject } from '../shared/send-request.js';
import {
  bedrockEmbeddingFamily,
  bedrockEmbeddingIncapability,
  cohereEmbeddingBody,
  cohereMaxTextsPerCall,
  estimateTextTokens,
  isVector,
  readCohereVectors,
  titanEmbeddingBody,
  type CohereEmbeddingAnswer,
  type TitanEmbeddingAnswer,
} from './convert-embeddings.js';
import { postInvokeModel, readInputTokenCountHeader } from './transport.js';

/**
 * Bedrock embeddings over InvokeModel, in the body of the model's vendor: Titan Text Embeddings
 * (one text a call, its tokens in `inputTextTokenCount`) or Cohere Embed (up to 96 texts a call,
 * its tokens only in Bedrock's `X-Amzn-Bedrock-Input-Token-Count` header; estimated, and marked
 * so, when that is missing). Error statuses reject through `sendRequest` as `UpstreamError`s.
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed.html
 */
export const bedrockEmbeddingAdapter: EmbeddingAdapter = {
  api: 'bedrock',
  maxInputsPerCall: (providerModel) => (bedrockEmbeddingFamily(providerModel)?.startsWith('cohere') ? cohereMaxTextsPerCall : 1),
  incapability: bedrockEmbeddingIncapability,

  async embed(request, context) {
    const family = bedrockEmbeddingFamily(context.providerModel);
    const texts = request.inputs.filter((input): input is string => typeof input === 'string');
    if (!family || texts.length !== request.inputs.length) throw createProtocolError(context.provider.id, `cannot embed this request with ${context.providerModel}`);
    if (family === 'titan-v2' || family === 'titan-v1') {
      // The caller splits by `maxInputsPerCall`; a longer list still goes one text a call.
      const results = [];
      for (const text of texts) results.push(await embedWithTitan(context, titanEmbeddingBody(text, family, request.dimensions)));
      return { vectors: results.flatMap((result) => result.vectors), promptTokens: results.reduce((sum, result) => sum + result.promptTokens, 0), estimated: results.some((result) => result.estimated) };
    }
    return embedWithCohere(context, texts, cohereEmbeddingBody(texts, family, request));
  },
};

async function embedWithTitan(context: CallContext, body: Record<string, unknown>): Promise<EmbeddingResult> {
  const response = await postInvokeModel(context, body);
  const header = readInputTokenCountHeader(response);
  const answer = await readJsonObject<TitanEmbeddingAnswer>(context.provider.id, response);
  if (!isVector(answer.embedding)) throw createProtocolError(context.provider.id, 'sent a Titan answer without an embedding', JSON.stringify(answer).slice(0, 500));
  const counted = typeof answer.inputTextTokenCount === 'number' && Number.isInteger(answer.inputTextTokenCount) ? answer.inputTextTokenCount : header;
  if (counted !== undefined) return { vectors: [answer.embedding], promptTokens: counted, estimated: false };
  return { vectors: [answer.embedding], promptTokens: estimateTextTokens([String(body.inputText)]), estimated: true };
}

async function embedWithCohere(context: CallContext, texts: string[], body: Record<string, unknown>): Promise<EmbeddingResult> {
  const response = await postInvokeModel(context, body);
  const header = readInputTokenCountHeader(response);
  const answer = await readJsonObject<CohereEmbeddingAnswer>(context.provider.id, response);
  const vectors = readCohereVectors(answer);
  if (!Array.isArray(vectors) || vectors.length !== texts.length || !vectors.every(isVector)) {
    throw createProtocolError(context.provider.id, `sent ${Array.isArray(vectors) ? vectors.length : 'no'} float vectors for ${texts.length} texts`, JSON.stringify(answer).slice(0, 500));
  }
  if (header !== undefined) return { vectors, promptTokens: header, estimated: false };
  return { vectors, promptTokens: estimateTextTokens(texts), estimated: true };
}
