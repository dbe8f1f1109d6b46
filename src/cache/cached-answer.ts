import type { TextResult } from '../core/text-result.js';

/**
 * One stored answer: a complete, successful text result in the canonical model (whatever style
 * asked for it, it is encoded again per request, as JSON or as a stream), what it cost when the
 * provider served it, and which catalog endpoint served it (for the hit's request-log row).
 */
export interface CachedAnswer {
  /** The account it belongs to: compared on every read, never served to another. */
  accountId: string;
  model: string;
  provider: string;
  /** The endpoint's provider model (`endpoint.model`), to find the same catalog endpoint again. */
  providerModel: string;
  result: TextResult;
  /** nano-USD charged for the original call. */
  cost: bigint;
  /** Epoch milliseconds; both backends compare `expiresAt` with the context's clock on read. */
  storedAt: number;
  expiresAt: number;
}

/** The entry as stored (JSON): amounts as decimal strings. */
export function encodeCachedAnswer(answer: CachedAnswer): string {
  const { usage } = answer.result;
  const result = usage.toolCost === undefined ? answer.result : { ...answer.result, usage: { ...usage, toolCost: usage.toolCost.toString() } };
  return JSON.stringify({ ...answer, result, cost: answer.cost.toString() });
}

/** The stored JSON back as an answer; undefined when it is not one (a read that fails is a miss). */
export function decodeCachedAnswer(text: string): CachedAnswer | undefined {
  try {
    const stored = JSON.parse(text) as Omit<CachedAnswer, 'cost'> & { cost: string; result: TextResult & { usage: { toolCost?: string } } };
    if (typeof stored.accountId !== 'string' || typeof stored.cost !== 'string' || typeof stored.expiresAt !== 'number' || typeof stored.result !== 'object' || stored.result === null) return undefined;
    const { usage } = stored.result;
    const result: TextResult =
      usage.toolCost === undefined ? (stored.result as TextResult) : { ...stored.result, usage: { ...usage, toolCost: BigInt(usage.toolCost) } };
    return { ...stored, result, cost: BigInt(stored.cost) };
  } catch {
    return undefined;
  }
}
