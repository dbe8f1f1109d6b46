import type { TextResult } from '../../core/text-result.js';
import { systemClock, type Clock } from '../../core/clock.js';
import type { ResponseMeta } from '../shared/text-call.js';
import { unixSeconds } from './unix-seconds.js';
import { buildResponseObject } from './build-response-object.js';
import { deriveItemId } from './derive-item-id.js';
import { encodeOutputItems, encodeRefusalItem, readRefusal } from './encode-output-items.js';
import { encodeUsage } from './encode-usage.js';
import { encodeHostedCallItems } from './encode-web-search-call.js';
import { mapFinishStatus } from './map-finish-status.js';
import type { ResponsesEcho } from './responses-echo.js';
import type { OutputItem, ResponseObject } from './responses-wire.js';

export interface EncodeResponseOptions {
  /** The time source for `completed_at`; defaults to the system clock. */
  clock?: Clock;
}

/**
 * A complete generation → the Responses API's Response object. `output_text` is not written:
 * it is an SDK convenience computed from `output`, not part of the wire object.
 */
export function encodeResponsesResponse(
  result: TextResult,
  meta: ResponseMeta,
  cost: bigint,
  echo: ResponsesEcho,
  options: EncodeResponseOptions = {},
): ResponseObject {
  const finish = mapFinishStatus(result.finishReason);
  const clock = options.clock ?? systemClock;
  // The searches the gateway ran come first, as OpenAI's hosted search puts its calls before the message.
  const output: OutputItem[] = encodeHostedCallItems(result.hostedCalls);
  output.push(...encodeOutputItems(result.content, meta.id, finish.status === 'incomplete' ? 'incomplete' : 'completed', echo.toolNamespaces));
  const refusal = readRefusal(result.stopDetails);
  if (refusal !== undefined) output.push(encodeRefusalItem(deriveItemId('message', meta.id, output.length), refusal));
  return buildResponseObject(meta, echo, {
    status: finish.status,
    output,
    usage: encodeUsage(result.usage, cost),
    error: finish.error,
    incompleteDetails: finish.incompleteDetails,
    completedAt: finish.status === 'completed' ? unixSeconds(clock) : null,
  });
}
