/**
 * PostgreSQL's serialization failure (40001) and deadlock (40P01): the transaction was rolled
 * back whole, so running it again is safe, and usually succeeds at once. Every writer locks
 * rows in one global order, so a deadlock should not happen at all; these are the safety net.
 */
export function isTransactionConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01';
}

export interface ConflictRetryOptions {
  /** Tries in all, the first included. */
  attempts?: number;
  /** Mean pause before the second try, doubled before each further one. */
  delayMs?: number;
}

/**
 * Runs `transaction` (one whole transaction, or one autocommitted statement) again when
 * PostgreSQL rolled it back for a conflict, a bounded number of times, after a pause with
 * jitter (between half and one and a half times the step), so that the transactions that
 * collided do not collide again in step. Any other error, or the last conflict, is thrown.
 */
export async function retryOnConflict<T>(transaction: () => Promise<T>, options: ConflictRetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 5;
  let step = options.delayMs ?? 10;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= attempts || !isTransactionConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, step * (0.5 + Math.random())));
      step *= 2;
    }
  }
}
