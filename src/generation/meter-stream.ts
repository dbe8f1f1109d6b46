import type { Ledger, Reservation } from '../billing/ledger.js';
import { estimateTextTokens } from '../billing/estimate-tokens.js';
import { priceTextUsage } from '../billing/pricing.js';
import type { StreamPart } from '../core/stream-part.js';
import type { Usage } from '../core/usage.js';
import type { Candidate } from '../routing/candidate.js';
import type { EndpointHealth } from '../routing/endpoint-health.js';

export interface StreamSettlement {
  usage: Usage;
  cost: bigint;
  /** `completed`, `failed` (upstream died mid-stream) or `aborted` (the client left). */
  status: 'completed' | 'failed' | 'aborted';
  errorCode?: string;
}

/**
 * Wraps a provider stream: prices the `finish` part and settles the reservation with it; on an
 * in-band failure or when the consumer stops early (client gone), settles for what was
 * generated so far, estimated from the text when the provider never said. Exactly one
 * settlement, whichever way the stream ends.
 */
export async function* meterStream(
  parts: AsyncIterable<StreamPart>,
  options: {
    candidate: Candidate;
    reservation: Reservation;
    ledger: Ledger;
    health: EndpointHealth;
    prompt: { tokens: number; images: number };
    startedAt: number;
    onSettled: (settlement: StreamSettlement) => void;
  },
): AsyncGenerator<StreamPart> {
  let outputBytes = '';
  let settled = false;
  const settle = async (usage: Usage, status: StreamSettlement['status'], errorCode?: string): Promise<bigint> => {
    settled = true;
    const cost = priceTextUsage(options.candidate.endpoint.pricing, usage, options.prompt.images);
    const charged = await options.ledger.settle(options.reservation, cost);
    options.onSettled({ usage, cost: charged, status, errorCode });
    return charged;
  };
  const delivered = (): Usage => ({ promptTokens: options.prompt.tokens, completionTokens: estimateTextTokens(outputBytes), estimated: true });
  try {
    for await (const part of parts) {
      if (part.type === 'text-delta' || part.type === 'reasoning-delta') outputBytes += part.text;
      else if (part.type === 'tool-call-delta') outputBytes += part.argumentsDelta;
      if (part.type === 'finish') {
        const usage = part.usage.estimated ? delivered() : part.usage;
        const elapsedSeconds = (performance.now() - options.startedAt) / 1000;
        options.health.recordSuccess(options.candidate.healthKey, performance.now() - options.startedAt, usage.completionTokens / Math.max(elapsedSeconds, 0.001));
        const cost = await settle(usage, 'completed');
        yield { ...part, usage, cost };
        return;
      }
      if (part.type === 'error') {
        options.health.recordFailure(options.candidate.healthKey);
        await settle(delivered(), 'failed', part.error.code);
        yield part;
        return;
      }
      yield part;
    }
  } finally {
    if (!settled) await settle(delivered(), 'aborted', 'client_closed');
  }
}
