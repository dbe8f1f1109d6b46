import type { AppContext } from '../app-context.js';
import type { Reservation } from '../billing/ledger.js';
import { countTextTokens } from '../billing/count-tokens.js';
import { priceTextUsage } from '../billing/pricing.js';
import type { EndpointPricing } from '../config/types.js';
import type { RelayedPart } from '../core/stream-part.js';
import type { TextRequest } from '../core/text-request.js';
import type { Usage } from '../core/usage.js';
import type { CallContext, RelayCall, TextRelay } from '../providers/provider-adapter.js';
import type { Candidate } from '../routing/candidate.js';
import type { HealthAttempt } from '../routing/endpoint-health.js';
import type { RequestRecord } from '../billing/request-record.js';
import type { RequestTrace } from '../telemetry/request-trace.js';
import { settleTraced } from '../telemetry/settle-traced.js';
import { meterStream, type StreamSettlement } from './meter-stream.js';
import type { PassThroughPlan } from './plan-pass-through.js';
import { tagSignature } from './tag-signatures.js';

export type RelayOutcome =
  | { stream: false; relayed: true; body: Record<string, unknown>; usage: Usage; cost: bigint }
  | { stream: true; relayed: true; parts: AsyncIterable<RelayedPart>; close(): Promise<void> };

export interface RelayInput {
  candidate: Candidate;
  plan: PassThroughPlan;
  /** The planned request: its `maxTokens` is the cap the relay sends (contract §5). */
  request: TextRequest;
  reservation: Reservation;
  requestId: string;
  callContext: CallContext;
  prompt: { tokens: number; images: number };
  countPrompt: () => Promise<number>;
  startedAt: number;
  health: () => HealthAttempt;
  onSettled: (settlement: StreamSettlement) => RequestRecord | undefined;
  /** The price of another model that served part of the call (see `Usage.delegated`), if known. */
  pricingOf: (providerModel: string) => EndpointPricing | undefined;
  trace?: RequestTrace;
}

/**
 * One pass-through call (see `plan-pass-through.ts`) through the protocol's relay: the
 * provider's answer in the style's official shape, its usage read and settled exactly as on the
 * translated path — priced, charged with its request log row, estimated with the tokenizer only
 * when the provider reported none.
 */
export async function relayText(context: AppContext, relay: TextRelay, input: RelayInput): Promise<RelayOutcome> {
  const { candidate, plan, request, callContext } = input;
  const api = candidate.provider.api;
  const call: RelayCall = {
    body: plan.body,
    request,
    identity: { id: input.requestId, model: candidate.model.id, tagSignature: (signature: string) => tagSignature(api, signature) },
  };
  if (!request.stream) {
    const answer = await relay.relay(call, callContext);
    const usage: Usage = answer.usage.estimated
      ? { promptTokens: await input.countPrompt(), completionTokens: await countTextTokens(answer.text()), estimated: true }
      : answer.usage;
    const cost = priceTextUsage(candidate.endpoint.pricing, usage, input.prompt.images, input.pricingOf);
    const settlement: StreamSettlement = { usage, cost, status: 'completed' };
    const charged = await settleTraced(context.ledger, input.trace, input.reservation, settlement, input.onSettled(settlement));
    return { stream: false, relayed: true, body: answer.body, usage, cost: charged };
  }
  const parts = await relay.relayStream(call, callContext);
  const metered = meterStream(parts, {
    candidate,
    reservation: input.reservation,
    ledger: context.ledger,
    health: input.health(),
    prompt: input.prompt,
    countPrompt: input.countPrompt,
    startedAt: input.startedAt,
    onSettled: input.onSettled,
    pricingOf: input.pricingOf,
    trace: input.trace,
  });
  return { stream: true, relayed: true, parts: metered.parts, close: metered.close };
}
