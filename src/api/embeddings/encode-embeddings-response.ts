import { nanoToUsd } from '../../core/money.js';
import type { EmbeddingResult } from '../../core/embedding-request.js';
import type { EmbeddingEncoding } from './decode-embedding-request.js';

export interface EmbeddingsResponse {
  object: 'list';
  data: Array<{ object: 'embedding'; index: number; embedding: number[] | string }>;
  model: string;
  /** OpenAI's counts, plus OpenRouter's `cost` in USD as the text styles answer it. */
  usage: { prompt_tokens: number; total_tokens: number; cost: number };
}

/**
 * OpenAI's embeddings list. `base64` is what OpenAI answers for it: the vector's little-endian
 * float32 bytes, base64 — the official SDKs ask for it by default and decode it so.
 */
export function encodeEmbeddingsResponse(result: EmbeddingResult, model: string, encoding: EmbeddingEncoding, cost: bigint): EmbeddingsResponse {
  return {
    object: 'list',
    data: result.vectors.map((vector, index) => ({ object: 'embedding', index, embedding: encoding === 'base64' ? encodeFloat32Base64(vector) : vector })),
    model,
    usage: { prompt_tokens: result.promptTokens, total_tokens: result.promptTokens, cost: nanoToUsd(cost) },
  };
}

/** Little-endian float32 (the byte order of every platform Node runs on, and of OpenAI's answers). */
export function encodeFloat32Base64(vector: readonly number[]): string {
  const bytes = Buffer.allocUnsafe(vector.length * 4);
  for (let index = 0; index < vector.length; index += 1) bytes.writeFloatLE(vector[index], index * 4);
  return bytes.toString('base64');
}
