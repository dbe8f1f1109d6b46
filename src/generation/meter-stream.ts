import type { Ledger, Reservation } from '../billing/ledger.js';
import { countTextTokens } from '../billing/count-tokens.js';
import { priceTextUsage } from '../billing/pricing.js';
import type { RelayedPart, StreamPart } from '../core/stream-part.js';
import type { Usage } from '../core/usage.js';
import type { EndpointPricing } from '../config/types.js';
import type { RequestLogErrorCode } from '../errors/request-log-codes.js';
import type { Candidate } from '../routing/candidate.js';
import type { RequestRecord } from '../billing/request-record.js';
import type { HealthAttempt } from '../routing/endpoint-health.js';
import type { RequestTrace } from '../telemetry/request-trace.js';
import { settleTraced } from '../telemetry/settle-traced.js';
import { tagSignature } from './tag-signatures.js';
import { withFields } from '../core/with-fields.js';

export interface StreamSettlement {
  usage: Usage;
  cost: bigint;
  /** `completed`, `failed` (upstream died mid-stream) or `aborted` (the client left). */
  status: 'completed' | 'failed' | 'aborted';
  errorCode?: RequestLogErrorCode;
  /** What the request preferred and the endpoint could not honour, for the request log (see drop-unmet-preferences.ts). */
  omitted?: readonly string[];
}

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
 * Wraps a provider stream: prices the `finish` part and settles the reservation with it; on an
 * in-band failure or when the consumer stops early (client gone), settles for what was
 * generated so far, estimated from the text when the provider never said. Exactly one
 * settlement, whichever way the stream ends.
 */
export function meterStream<P extends RelayedPart>(
  parts: AsyncIterable<P>,
  options: MeterOptions,
): MeteredStream<P> {
  const state = { settled: false };
  const metered = readMetered(parts, options, state);
  return {
    parts: metered,
    async close() {
      // A generator that never started skips its finally on return(): settle here instead.
      if (!state.settled) {
        state.settled = true;
        const usage: Usage = { promptTokens: await options.countPrompt(), completionTokens: 0, estimated: true };
        const cost = priceTextUsage(options.candidate.endpoint.pricing, usage, options.prompt.images);
        const settlement: StreamSettlement = { usage, cost, status: 'aborted', errorCode: 'client_closed' };
        await settleTraced(options.ledger, options.trace, options.reservation, settlement, options.onSettled(settlement));
      }
      options.health.end();
      await metered.return(undefined);
      await parts[Symbol.asyncIterator]().return?.(undefined);
    },
  };
}

interface MeterOptions {
  candidate: Candidate;
  reservation: Reservation;
  ledger: Ledger;
  /** This call's breaker report, handed over by the candidate loop; ended whichever way the stream ends. */
  health: HealthAttempt;
  prompt: { tokens: number; images: number };
  /** Counts the prompt with the tokenizer, for streams whose provider reports no usage. */
  countPrompt: () => Promise<number>;
  startedAt: number;
  /** Answers the request log row to commit with the charge (see `Ledger.settle`). */
  onSettled: (settlement: StreamSettlement) => RequestRecord | undefined;
  /** The price of another model that served part of the call (see `Usage.delegated`), if known. */
  pricingOf?: (providerModel: string) => EndpointPricing | undefined;
  /** The request's spans, when tracing is on. */
  trace?: RequestTrace;
}

async function* readMetered<P extends RelayedPart>(
  parts: AsyncIterable<P>,
  options: MeterOptions,
  state: { settled: boolean },
): AsyncGenerator<P> {
  let outputBytes = '';
  const settle = async (usage: Usage, status: StreamSettlement['status'], errorCode?: RequestLogErrorCode): Promise<bigint> => {
    state.settled = true;
    const cost = priceTextUsage(options.candidate.endpoint.pricing, usage, options.prompt.images, options.pricingOf);
    const settlement: StreamSettlement = { usage, cost, status, errorCode };
    return settleTraced(options.ledger, options.trace, options.reservation, settlement, options.onSettled(settlement));
  };
  const delivered = async (): Promise<Usage> => ({ promptTokens: await options.countPrompt(), completionTokens: await countTextTokens(outputBytes), estimated: true });
  try {
    for await (const item of parts) {
      // Relayed frames (pass-through) go by untouched; the canonical parts beside them are read.
      const part: RelayedPart = item;
      if (part.type === 'text-delta' || part.type === 'reasoning-delta') outputBytes += part.text;
      else if (part.type === 'tool-call-delta') outputBytes += part.argumentsDelta;
      if (part.type === 'finish') {
        const usage = part.usage.estimated ? await delivered() : part.usage;
        const elapsedSeconds = (performance.now() - options.startedAt) / 1000;
        options.health.succeeded(performance.now() - options.startedAt, usage.completionTokens / Math.max(elapsedSeconds, 0.001));
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
        options.health.failed();
        await settle(await delivered(), 'failed', part.error.code);
        yield item;
        return;
      }
      yield part.type === 'reasoning-signature' ? ({ ...part, signature: tagSignature(options.candidate.provider.api, part.signature) } as P) : item;
    }
  } finally {
    options.health.end();
    if (!state.settled) await settle(await delivered(), 'aborted', 'client_closed');
  }
}
