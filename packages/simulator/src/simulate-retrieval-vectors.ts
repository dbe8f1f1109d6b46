import { countWords } from './count-tokens.js';

/**
 * Deterministic stand-ins for what retrieval models compute, shared by the Voyage and Jina
 * routes: a vector is a function of the text, the task prompt and the size only (the same input
 * always embeds the same), and a relevance score is the share of the query's words a document
 * holds. Tokens follow the simulator's one-token-per-word rule (`count-tokens.ts`).
 */

/** A unit-length vector of `dimensions` numbers, seeded by the text (FNV-1a) and drawn with xorshift32. */
export function embedText(text: string, salt: string, dimensions: number): number[] {
  let seed = 0x811c9dc5;
  for (const char of `${salt}\u0000${text}`) {
    seed ^= char.codePointAt(0)!;
    seed = Math.imul(seed, 0x01000193) >>> 0;
  }
  if (seed === 0) seed = 1;
  const vector = new Array<number>(dimensions);
  let norm = 0;
  for (let index = 0; index < dimensions; index += 1) {
    seed ^= seed << 13;
    seed >>>= 0;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    seed >>>= 0;
    const value = seed / 0xffffffff - 0.5;
    vector[index] = value;
    norm += value * value;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  // Rounded as real answers are (float32 printed short), so that bodies stay readable.
  return vector.map((value) => Math.round(value * scale * 1e7) / 1e7);
}

function wordsOf(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/** The share of the query's distinct words the document contains, in [0, 1]. */
export function overlapScore(query: string, document: string): number {
  const queryWords = new Set(wordsOf(query));
  if (queryWords.size === 0) return 0;
  const documentWords = new Set(wordsOf(document));
  let shared = 0;
  for (const word of queryWords) if (documentWords.has(word)) shared += 1;
  return Math.round((shared / queryWords.size) * 1e6) / 1e6;
}

/** Documents by score, best first; equal scores keep the request's order. */
export function rankDocuments(query: string, documents: readonly string[]): Array<{ index: number; score: number }> {
  return documents.map((document, index) => ({ index, score: overlapScore(query, document) })).sort((left, right) => right.score - left.score || left.index - right.index);
}

export function countTextTokens(texts: readonly string[]): number {
  return texts.reduce((total, text) => total + countWords(text), 0);
}

/** Voyage's definition of a rerank's tokens, which the simulator uses for Jina too: query × documents + all documents. */
export function countRerankTokens(query: string, documents: readonly string[]): number {
  return countWords(query) * documents.length + countTextTokens(documents);
}
