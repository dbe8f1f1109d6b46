import type { RelayedPart } from '../../core/stream-part.js';
import { nanoToUsd } from '../../core/money.js';
import type { Usage } from '../../core/usage.js';
import { withCost } from '../shared/relay-frames.js';
import type { ResponseMeta } from '../shared/text-call.js';
import { encodeStreamError } from './encode-error.js';
import { encodeUsage } from './encode-usage.js';

/**
 * The usage a relayed answer gets: Gemini's own counts stay as it sent them (they are what the
 * gateway charged by), plus `cost`; all counts only when Gemini sent none and the gateway counted.
 */
export function encodeRelayedUsage(usage: Usage, cost: bigint | undefined): object {
  if (usage.estimated) return encodeUsage(usage, cost);
  return cost === undefined ? {} : { cost: nanoToUsd(cost) };
}

/**
 * A relayed Gemini stream as chunk JSON texts, for `frameSse` or `frameJsonArray`: the provider's
 * chunks as relayed, then the held closing chunks, the last with the cost in its `usageMetadata`,
 * or Gemini's in-band error.
 */
export async function* encodeRelayedChunks(parts: AsyncIterable<RelayedPart>, meta: ResponseMeta): AsyncGenerator<string> {
  for await (const part of parts) {
    if (part.type === 'relay-frame') {
      yield part.frame;
    } else if (part.type === 'finish') {
      const held = part.held ?? [];
      for (const [index, chunk] of held.entries()) {
        if (typeof chunk.data === 'string') {
          yield chunk.data;
          continue;
        }
        if (index === held.length - 1) chunk.data.usageMetadata = withCost(chunk.data.usageMetadata, encodeRelayedUsage(part.usage, part.cost));
        yield JSON.stringify(chunk.data);
      }
      return;
    } else if (part.type === 'error') {
      yield JSON.stringify(encodeStreamError(part.error, meta));
      return;
    }
  }
  yield JSON.stringify(encodeStreamError({ code: 'internal_error', message: 'The generation stream ended unexpectedly', status: 500 }, meta));
}
