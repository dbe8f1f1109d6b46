import type { EmbeddingRequest, EmbeddingResult } from '../../core/embedding-request.js';
import type { EmbeddingAdapter } from '../retrieval-adapter.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { readJsonObject } from '../shared/send-request.js';
import { sendUpstream } from '../shared/send-upstream.js';
import { authorizationHeaders, openaiOperationUrl } from './transport.js';

export interface OpenAIEmbeddingsResponse {
  data?: Array<{ index?: unknown; embedding?: unknown }>;
  usage?: { prompt_tokens?: unknown };
}

/**
 * OpenAI's documented limit: "The input must not exceed the max input tokens for the model (8192
 * tokens for all embedding models), cannot be an empty string, and any array must be 2048
 * dimensions or less" — 2,048 inputs per request.
 * https://platform.openai.com/docs/api-reference/embeddings/create
 */
export const openaiMaxInputsPerCall = 2048;

/**
 * OpenAI embeddings: POST {base}/embeddings (Azure: the deployment URL with its api-version, as
 * for speech and images), also what OpenAI-compatible vendors (Mistral's `mistral-embed`, vLLM,
 * Ollama) answer. The vectors are asked for as floats, the default every compatible server
 * knows (`encoding_format: base64` is OpenAI's own); the gateway encodes base64 for its client
 * itself. Token-array inputs go through as they are. `user` is not sent: Mistral and other
 * compatible servers refuse fields they do not know, and the request log keeps it. A server that
 * reports no `usage` (some compatible ones) is answered `estimated`: the caller counts the tokens.
 */
export const openaiEmbeddingAdapter: EmbeddingAdapter = {
  api: 'openai',
  maxInputsPerCall: () => openaiMaxInputsPerCall,
  incapability: () => undefined,
  async embed(request, context) {
    const { provider } = context;
    const headers = await authorizationHeaders(provider);
    const response = await sendUpstream(context, openaiOperationUrl(provider, context.providerModel, 'embeddings'), { method: 'POST', headers, json: openaiEmbeddingsBody(request, context.providerModel) });
    return readEmbeddings(await readJsonObject<OpenAIEmbeddingsResponse>(provider.id, response), request.inputs.length, provider.id);
  },
};

/** The body of an embeddings call (also a line of an OpenAI batch, `batch-adapter.ts`). */
export function openaiEmbeddingsBody(request: EmbeddingRequest, providerModel: string): Record<string, unknown> {
  const body: Record<string, unknown> = { model: providerModel, input: request.inputs };
  if (request.dimensions !== undefined) body.dimensions = request.dimensions;
  return body;
}

/** One vector per input, placed by `index` (OpenAI answers them in order, but says so only through `index`). */
export function readEmbeddings(body: OpenAIEmbeddingsResponse, count: number, providerId: string): EmbeddingResult {
  const vectors: number[][] = new Array(count);
  const data = Array.isArray(body.data) ? body.data : [];
  for (let position = 0; position < data.length; position += 1) {
    const entry = data[position];
    const index = typeof entry?.index === 'number' ? entry.index : position;
    if (!Number.isInteger(index) || index < 0 || index >= count || vectors[index] !== undefined) {
      throw createProtocolError(providerId, `answered an embedding with index ${String(entry?.index)} for ${count} inputs`);
    }
    vectors[index] = readVector(entry?.embedding, providerId);
  }
  for (let index = 0; index < count; index += 1) {
    if (vectors[index] === undefined) throw createProtocolError(providerId, `answered ${data.length} embeddings for ${count} inputs`, JSON.stringify(body).slice(0, 500));
  }
  const promptTokens = body.usage?.prompt_tokens;
  if (typeof promptTokens === 'number' && Number.isInteger(promptTokens) && promptTokens >= 0) return { vectors, promptTokens, estimated: false };
  return { vectors, promptTokens: 0, estimated: true };
}

/** A float array, or the base64 of little-endian float32s that a server may answer anyway. */
function readVector(value: unknown, providerId: string): number[] {
  if (Array.isArray(value) && value.every((item) => typeof item === 'number')) return value as number[];
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length % 4 === 0) {
      const vector = new Array<number>(bytes.length / 4);
      for (let index = 0; index < vector.length; index += 1) vector[index] = bytes.readFloatLE(index * 4);
      return vector;
    }
  }
  throw createProtocolError(providerId, 'answered an embedding that is neither numbers nor base64 float32');
}
