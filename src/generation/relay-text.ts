import type { PaidCall } from '../billing/paid-call.js';
import { countTextTokens } from '../billing/count-tokens.js';
import type { RelayedPart } from '../core/stream-part.js';
import type { TextRequest } from '../core/text-request.js';
import type { Usage } from '../core/usage.js';
import type { CallContext, RelayCall, TextRelay } from '../providers/provider-adapter.js';
import { meterStream } from './meter-stream.js';
import type { PassThroughPlan } from './plan-pass-through.js';
import { tagSignature } from '../core/signature-tag.js';

export type RelayOutcome =
  | { stream: false; relayed: true; body: Record<string, unknown>; usage: Usage; cost: bigint }
  | { stream: true; relayed: true; parts: AsyncIterable<RelayedPart>; close(): Promise<void> };

export interface RelayInput {
  /** The paid call: its candidate, reservation, breaker report, trace and request log row. */
  call: PaidCall;
  plan: PassThroughPlan;
  /** The planned request: its `maxTokens` is the cap the relay sends (contract §5). */
  request: TextRequest;
  requestId: string;
  callContext: CallContext;
  countPrompt: () => Promise<number>;
}

/**
 * One pass-through call (see `plan-pass-through.ts`) through the protocol's relay: the
 * provider's answer in the style's official shape, its usage read and settled exactly as on the
 * translated path — priced, charged with its request log row, estimated with the tokenizer only
 * when the provider reported none.
 */
export async function relayText(relay: TextRelay, input: RelayInput): Promise<RelayOutcome> {
  const { call: paid, plan, request, callContext } = input;
  const { candidate } = paid;
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
    const charged = await paid.settle(usage, 'completed');
    return { stream: false, relayed: true, body: answer.body, usage, cost: charged };
  }
  const parts = await relay.relayStream(call, callContext);
  const metered = meterStream(parts, paid, input.countPrompt);
  return { stream: true, relayed: true, parts: metered.parts, close: metered.close };
}
