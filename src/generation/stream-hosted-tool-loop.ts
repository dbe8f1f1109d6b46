import type { StreamPart } from '../core/stream-part.js';
import type { TextResult } from '../core/text-result.js';
import { UpstreamError, toStreamError } from '../errors/upstream-error.js';
import { streamResult } from './stream-result.js';

type Progress = Extract<StreamPart, { type: 'hosted-tool-start' | 'hosted-tool-call' }>;

export interface HostedLoopStream {
  /** Runs the loop, telling each tool call's start and end. */
  run(onProgress: (part: Progress) => void): Promise<{ result: TextResult; cost: bigint }>;
  /** Settles the finished loop; answers the result as the client gets it and the charged cost. */
  settle(looped: { result: TextResult; cost: bigint }): Promise<{ result: TextResult; charged: bigint }>;
  /** Settles a loop that failed after the stream began (nothing is charged, as before it streamed); never throws. */
  fail(error: unknown): Promise<void>;
}

/**
 * A streamed request whose hosted tools the gateway runs: the tool calls' progress goes to the
 * client as it happens (the stream starts with the first call), the answer once the loop is done,
 * as a provider running the tool streams it. Resolves once the stream has its first part, so
 * that a failure before (the first model turn) still fails over; one after it ends the stream
 * with an error part.
 */
export async function streamHostedToolLoop(loop: HostedLoopStream): Promise<AsyncIterable<StreamPart>> {
  const queue: StreamPart[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  let failure: unknown;
  const push = (...parts: StreamPart[]) => {
    queue.push(...parts);
    wake?.();
  };
  let started = false;
  const onProgress = (part: Progress) => {
    if (!started) push({ type: 'start' });
    started = true;
    push(part);
  };
  // Runs beside the stream; `fail` does not throw (it logs what it cannot settle).
  void (async () => {
    try {
      const { result, charged } = await loop.settle(await loop.run(onProgress));
      for await (const part of streamResult(result, charged, started)) queue.push(part);
    } catch (error) {
      if (!started) return void (failure = error);
      queue.push({ type: 'error', error: error instanceof UpstreamError ? toStreamError(error) : { message: 'The generation failed', code: 'internal_error', status: 500 } });
      await loop.fail(error);
    } finally {
      ended = true;
      wake?.();
    }
  })();
  const next = async (): Promise<void> => {
    if (queue.length > 0 || ended) return;
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  };
  await next();
  if (failure !== undefined) throw failure;
  return (async function* () {
    for (;;) {
      while (queue.length > 0) yield queue.shift()!;
      if (ended) return;
      await next();
    }
  })();
}
