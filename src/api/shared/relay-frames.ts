import type { RelayedPart, StreamError } from '../../core/stream-part.js';
import type { Usage } from '../../core/usage.js';
import { withFields } from '../../core/with-fields.js';
import type { PassThroughRules } from '../../core/pass-through.js';
import type { ResponseMeta } from './text-call.js';

/** What a style adds to the pass-through: which fields go as they came, its usage with the cost, and its in-band error frames. */
export interface RelayStyle {
  rules: PassThroughRules;
  /** The style's `usage` for the settled usage and cost; merged over the provider's own `usage`. */
  encodeUsage(usage: Usage, cost: bigint | undefined): object;
  /** Where the answer carries its usage: `usage`, or Gemini's `usageMetadata`. */
  usageField?: string;
  /** The frames that end a stream on an error, in the style's envelope. */
  errorFrames(error: StreamError, meta: ResponseMeta): string[];
}

/**
 * The client's SSE of a pass-through stream: relayed provider frames as they come, then the
 * held closing events with `usage` (counts as settled, plus `cost`), or the style's error frames.
 */
export async function* encodeRelayedStream(parts: AsyncIterable<RelayedPart>, meta: ResponseMeta, style: RelayStyle): AsyncGenerator<string> {
  for await (const part of parts) {
    if (part.type === 'relay-frame') {
      yield part.frame;
    } else if (part.type === 'finish') {
      for (const held of part.held ?? []) {
        const prefix = held.event === undefined ? '' : `event: ${held.event}\n`;
        if (typeof held.data === 'string') {
          yield `${prefix}data: ${held.data}\n\n`;
          continue;
        }
        // The provider's frame stays as it came: what goes out is a copy with the settled usage and cost.
        const data = 'usage' in held.data ? withFields(held.data, { usage: withCost(held.data.usage, style.encodeUsage(part.usage, part.cost)) }) : held.data;
        yield `${prefix}data: ${JSON.stringify(data)}\n\n`;
      }
      return;
    } else if (part.type === 'error') {
      yield* style.errorFrames(part.error, meta);
      return;
    } else if (part.frame !== undefined) {
      yield part.frame;
    }
  }
  // Every metered stream ends with `finish` or `error`; one that does not was cut short.
  yield* style.errorFrames({ code: 'internal_error', message: 'The generation stream ended unexpectedly', status: 500 }, meta);
}

const noFields = {};

/**
 * A relayed JSON answer with the settled usage and cost in the style's usage field: a copy, so
 * that the provider's body stays as it came (a keyed store on the copy, not a computed-key literal).
 */
export function withSettledUsage(body: Record<string, unknown>, style: RelayStyle, usage: Usage, cost: bigint): Record<string, unknown> {
  const field = style.usageField ?? 'usage';
  const answer: Record<string, unknown> = withFields(body, noFields);
  answer[field] = withCost(body[field], style.encodeUsage(usage, cost));
  return answer;
}

/** The provider's usage object with the settled counts and the cost written over it (its other fields kept). */
export function withCost(providerUsage: unknown, settled: object): object {
  return typeof providerUsage === 'object' && providerUsage !== null ? withFields(providerUsage, settled) : settled;
}
