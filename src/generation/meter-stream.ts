import { countTextTokens } from '../billing/count-tokens.js';
import type { PaidCall } from '../billing/paid-call.js';
import type { SettlementStatus } from '../billing/settlement.js';
import type { RelayedPart, StreamPart } from '../core/stream-part.js';
import type { Usage } from '../core/usage.js';
import type { RequestLogErrorCode } from '../errors/request-log-codes.js';
import type { HealthAttempt } from '../billing/paid-call.js';
import { tagSignature } from '../core/signature-tag.js';
import { withFields } from '../core/with-fields.js';

export interface MeteredStream<P extends RelayedPart = StreamPart> {
  parts: AsyncIterable<P>;
  /**
   * Ends the stream if it is still open: settles for what was generated (nothing, when it was
   * never read — the client left before the first frame) and closes the provider stream.
   * Idempotent; call it once the response is over, whichever way it ended.
   */
  close(): Promise<void>;
}

/**
 * Wraps a provider stream: prices the `finish` part and settles the paid call with it; on an
 * in-band failure or when the consumer stops early (client gone), settles for what was
 * generated so far, estimated from the text when the provider never said. Exactly one
 * settlement, whichever way the stream ends.
 */
export function meterStream<P extends RelayedPart>(
  parts: AsyncIterable<P>,
  call: PaidCall,
  /** Counts the prompt with the tokenizer, for streams whose provider reports no usage. */
  countPrompt: () => Promise<number>,
): MeteredStream<P> {
  // From here the stream, not the candidate loop, reports to the breaker when it ends.
  const health = call.takeHealth();
  // Set before close's first await, so that the generator's finally does not settle a second time.
  const closing = { value: false };
  const metered = readMetered(parts, call, health, countPrompt, closing);
  return {
    parts: metered,
    async close() {
      // A generator that never started skips its finally on return(): settle here instead.
      if (!call.settled && !closing.value) {
        closing.value = true;
        await call.settle({ promptTokens: await countPrompt(), completionTokens: 0, estimated: true }, 'aborted', { errorCode: 'client_closed' });
      }
      health.end();
      await metered.return(undefined);
      await parts[Symbol.asyncIterator]().return?.(undefined);
    },
  };
}

async function* readMetered<P extends RelayedPart>(
  parts: AsyncIterable<P>,
  call: PaidCall,
  health: HealthAttempt,
  countPrompt: () => Promise<number>,
  closing: { value: boolean },
): AsyncGenerator<P> {
  let outputBytes = '';
  const settle = (usage: Usage, status: SettlementStatus, errorCode?: RequestLogErrorCode): Promise<bigint> => call.settle(usage, status, errorCode === undefined ? undefined : { errorCode });
  const delivered = async (): Promise<Usage> => ({ promptTokens: await countPrompt(), completionTokens: await countTextTokens(outputBytes), estimated: true });
  const api = call.candidate.provider.api;
  try {
    for await (const item of parts) {
      // Relayed frames (pass-through) go by untouched; the canonical parts beside them are read.
      const part: RelayedPart = item;
      if (part.type === 'text-delta' || part.type === 'reasoning-delta') outputBytes += part.text;
      else if (part.type === 'tool-call-delta') outputBytes += part.argumentsDelta;
      if (part.type === 'finish') {
        const usage = part.usage.estimated ? await delivered() : part.usage;
        const elapsedSeconds = (performance.now() - call.startedAt) / 1000;
        health.succeeded(performance.now() - call.startedAt, usage.completionTokens / Math.max(elapsedSeconds, 0.001));
        const cost = await settle(usage, 'completed');
        yield withFields(part, { usage, cost }) as P;
        return;
      }
      if (part.type === 'error') {
        // Our own abort (the client left) ends the provider stream with an `aborted` part: a
        // client close, not a provider failure, so it never reaches the breaker.
        if (part.error.code === 'aborted') {
          await settle(await delivered(), 'aborted', 'client_closed');
          return;
        }
        health.failed();
        await settle(await delivered(), 'failed', part.error.code);
        yield item;
        return;
      }
      yield part.type === 'reasoning-signature' ? ({ ...part, signature: tagSignature(api, part.signature) } as P) : item;
    }
  } finally {
    health.end();
    if (!call.settled && !closing.value) await settle(await delivered(), 'aborted', 'client_closed');
  }
}
