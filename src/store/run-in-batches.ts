/**
 * Lets timers, I/O and other requests run before the next piece of maintenance. On SQLite every
 * statement runs on the main thread and an `await` of it only yields to microtasks, so a loop of
 * statements holds the event loop for its whole length unless it yields a macrotask turn.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export interface BatchRun {
  /** Rows the batches handled. */
  done: number;
  batches: number;
}

/**
 * Maintenance in bounded batches (issue 54): `step` handles at most `batchSize` rows in one short
 * statement and says how many it handled; it runs again, after a yield, until a batch comes back
 * short (nothing more is due) or `maxBatches` ran (the rest is left for the next run).
 */
export async function runInBatches(step: (batchSize: number) => Promise<number>, options: { batchSize: number; maxBatches?: number }): Promise<BatchRun> {
  const run: BatchRun = { done: 0, batches: 0 };
  for (;;) {
    const handled = await step(options.batchSize);
    run.done += handled;
    run.batches += 1;
    if (handled < options.batchSize || run.batches >= (options.maxBatches ?? Number.POSITIVE_INFINITY)) return run;
    await yieldToEventLoop();
  }
}
