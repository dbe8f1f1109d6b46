import type { RerankRequest, RerankResult } from '../../core/rerank-request.js';
import type { Incapability } from '../media-adapter.js';
import type { RerankAdapter } from '../retrieval-adapter.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { readJsonObject } from '../shared/send-request.js';
import { estimateTextTokens } from './convert-embeddings.js';
import { postInvokeModel, readInputTokenCountHeader } from './transport.js';

/**
 * Bedrock's rerank models over InvokeModel on the runtime (`POST /model/{modelId}/invoke`), not
 * the Agents for Bedrock Runtime's `Rerank` operation: a Bedrock API key is limited to Bedrock
 * and Bedrock Runtime actions and cannot call Agent Runtime operations
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-supported.html), while
 * InvokeModel takes both credentials the provider may hold, at the base URL it already has.
 *
 * - Cohere Rerank 3.5: Cohere's v2 rerank body (`query`, `documents`, `top_n`,
 *   `max_tokens_per_doc`) with `api_version: 2`, which Bedrock requires (a body without it is
 *   refused, "api_version: 1 is not greater or equal to 2"); AWS lists InvokeModel on
 *   bedrock-runtime for it (https://docs.aws.amazon.com/bedrock/latest/userguide/model-card-cohere-rerank-3-5.html),
 *   and AWS's OpenSearch tutorial calls it so (https://opensearch.org/docs/latest/vector-search/tutorials/reranking/reranking-cohere-bedrock/);
 *   the refusal is quoted in https://github.com/cohere-ai/cohere-python/issues/613.
 * - Amazon Rerank 1.0: `query`, `documents` and `top_n`.
 * Both answer `{results: [{index, relevance_score}]}`, best first.
 *
 * Billing is per query: AWS counts a query of more than 100 documents as one query per 100
 * (https://aws.amazon.com/bedrock/pricing/, rerank models). Tokens come from Bedrock's
 * `X-Amzn-Bedrock-Input-Token-Count` header, else are estimated and marked so.
 */
export const bedrockRerankAdapter: RerankAdapter = {
  api: 'bedrock',
  incapability: bedrockRerankIncapability,

  async rerank(request, context) {
    const family = bedrockRerankFamily(context.providerModel);
    if (!family) throw createProtocolError(context.provider.id, `cannot rerank with ${context.providerModel}`);
    const response = await postInvokeModel(context, bedrockRerankBody(request, family));
    const header = readInputTokenCountHeader(response);
    const answer = await readJsonObject<{ results?: unknown }>(context.provider.id, response);
    const results = readRerankResults(answer, request.documents.length);
    if (!results) throw createProtocolError(context.provider.id, 'sent a rerank answer without valid results', JSON.stringify(answer).slice(0, 500));
    const searches = Math.max(1, Math.ceil(request.documents.length / documentsPerSearch));
    if (header !== undefined) return { results, searches, tokens: header, estimated: false };
    return { results, searches, tokens: estimateTextTokens([request.query, ...request.documents]), estimated: true };
  },
};

/** Documents one billed query covers (AWS's pricing page, rerank models). */
export const documentsPerSearch = 100;

export type BedrockRerankFamily = 'cohere' | 'amazon';

export function bedrockRerankFamily(modelId: string): BedrockRerankFamily | undefined {
  const id = modelId.toLowerCase();
  if (id.includes('cohere.rerank')) return 'cohere';
  if (id.includes('amazon.rerank')) return 'amazon';
  return undefined;
}

/** The most documents one Bedrock rerank call takes (the Rerank operation's limit on `sources`, which both models share). */
export const maxRerankDocuments = 1000;

export function bedrockRerankIncapability(request: RerankRequest, modelId: string): Incapability | undefined {
  const family = bedrockRerankFamily(modelId);
  if (!family) return { field: 'model', reason: `${modelId} is not a rerank model the gateway knows on Bedrock (Amazon Rerank, Cohere Rerank)` };
  if (request.documents.length > maxRerankDocuments) return { field: 'documents', reason: `Bedrock reranks at most ${maxRerankDocuments} documents a request` };
  if (family === 'amazon' && request.maxTokensPerDocument !== undefined) return { field: 'max_tokens_per_doc', reason: 'Amazon Rerank has no per-document token limit to set' };
  return undefined;
}

export function bedrockRerankBody(request: RerankRequest, family: BedrockRerankFamily): Record<string, unknown> {
  const body: Record<string, unknown> = { query: request.query, documents: request.documents };
  if (request.topN !== undefined) body.top_n = Math.min(request.topN, request.documents.length);
  if (family === 'cohere') {
    if (request.maxTokensPerDocument !== undefined) body.max_tokens_per_doc = request.maxTokensPerDocument;
    body.api_version = 2;
  }
  return body;
}

/** The answer's results, best first, each naming a document of the request; undefined when they do not. */
export function readRerankResults(answer: { results?: unknown }, documentCount: number): RerankResult['results'] | undefined {
  if (!Array.isArray(answer.results)) return undefined;
  const results: RerankResult['results'] = [];
  for (const item of answer.results as unknown[]) {
    const { index, relevance_score: score } = (item ?? {}) as { index?: unknown; relevance_score?: unknown };
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= documentCount) return undefined;
    if (typeof score !== 'number' || !Number.isFinite(score)) return undefined;
    results.push({ index, relevanceScore: score });
  }
  return results.sort((a, b) => b.relevanceScore - a.relevanceScore);
}
