import { createProtocolError } from './create-protocol-error.js';

/**
 * The vectors of an OpenAI-shaped embedding list (`data: [{embedding, index}]`), which Voyage
 * and Jina answer too: one per input, placed by `index` (an entry without one takes its
 * position). A missing, repeated or out-of-range index, or a vector that is not numbers, is a
 * protocol error: the answer cannot be matched to the inputs.
 */
export function readEmbeddingList(data: unknown, count: number, providerId: string): number[][] {
  const entries = Array.isArray(data) ? (data as Array<{ index?: unknown; embedding?: unknown } | null | undefined>) : [];
  const vectors: number[][] = new Array(count);
  for (let position = 0; position < entries.length; position += 1) {
    const entry = entries[position];
    const index = typeof entry?.index === 'number' ? entry.index : position;
    if (!Number.isInteger(index) || index < 0 || index >= count || vectors[index] !== undefined) {
      throw createProtocolError(providerId, `answered an embedding with index ${String(entry?.index)} for ${count} inputs`);
    }
    const vector = entry?.embedding;
    if (!Array.isArray(vector) || !vector.every((value) => typeof value === 'number' && Number.isFinite(value))) {
      throw createProtocolError(providerId, 'answered an embedding that is not a list of numbers');
    }
    vectors[index] = vector as number[];
  }
  for (let index = 0; index < count; index += 1) {
    if (vectors[index] === undefined) throw createProtocolError(providerId, `answered ${entries.length} embeddings for ${count} inputs`);
  }
  return vectors;
}

/** A token count the provider reported, when it is a non-negative integer. */
export function readTokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}
