import type { TextResult } from '../../core/text-result.js';
import { systemClock, type Clock } from '../../core/clock.js';
import type { ResponseMeta } from '../shared/text-call.js';
import { unixSeconds } from './unix-seconds.js';
import { buildResponseObject } from './build-response-object.js';
import { encodeOutputItems } from './encode-output-items.js';
import { encodeUsage } from './encode-usage.js';
import { mapFinishStatus } from './map-finish-status.js';
import type { ResponsesEcho } from './responses-echo.js';
import type { ResponseObject } from './responses-wire.js';

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
  return buildResponseObject(meta, echo, {
    status: finish.status,
    output: encodeOutputItems(result.content, meta.id, finish.status === 'incomplete' ? 'incomplete' : 'completed'),
    usage: encodeUsage(result.usage, cost),
    error: finish.error,
    incompleteDetails: finish.incompleteDetails,
    completedAt: finish.status === 'completed' ? unixSeconds(clock) : null,
  });
}
