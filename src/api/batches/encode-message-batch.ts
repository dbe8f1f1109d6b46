import type { MessageBatchCounts } from '../../batches/create-message-batch.js';
import type { BatchRecord } from '../../batches/db/batches.js';
import type { BatchLineRecord } from '../../batches/db/batch-lines.js';

/**
 * A batch as Anthropic's Message Batch object (https://docs.anthropic.com/en/api/retrieving-message-batches):
 * `processing_status` is `in_progress` until the batch ends (validating and finalizing included),
 * `canceling` while a cancel winds down, then `ended`; times are RFC 3339; `results_url` is set once
 * it has ended, absolute, at this gateway (`origin` is the URL the client called).
 */
export function encodeMessageBatch(batch: BatchRecord, counts: MessageBatchCounts, origin: string): Record<string, unknown> {
  const endedAt = batch.completedAt ?? batch.cancelledAt ?? batch.expiredAt ?? batch.failedAt;
  const processingStatus = endedAt !== null ? 'ended' : batch.status === 'cancelling' ? 'canceling' : 'in_progress';
  return {
    id: batch.id,
    type: 'message_batch',
    processing_status: processingStatus,
    request_counts: counts,
    ended_at: endedAt,
    created_at: batch.createdAt,
    expires_at: batch.expiresAt,
    archived_at: null,
    cancel_initiated_at: batch.cancellingAt,
    results_url: processingStatus === 'ended' ? `${origin}/v1/messages/batches/${batch.id}/results` : null,
  };
}

/**
 * One line of a Message Batch's results (https://docs.anthropic.com/en/api/retrieving-message-batch-results):
 * the Messages answer, the error envelope the live request would have got, or `canceled` /
 * `expired` for a request that never ran. Undefined for a line that has not ended.
 */
export function encodeMessageBatchResult(line: BatchLineRecord): Record<string, unknown> | undefined {
  switch (line.status) {
    case 'completed':
      return { custom_id: line.customId, result: { type: 'succeeded', message: line.response } };
    case 'failed': {
      // A line with no answer (the batch ended while it ran) has only the runner's error.
      const error = line.statusCode !== null && line.statusCode > 0 && line.response !== null
        ? line.response
        : { type: 'error', error: { type: 'api_error', message: line.error?.message ?? 'The request did not complete' }, request_id: line.requestId };
      return { custom_id: line.customId, result: { type: 'errored', error } };
    }
    case 'cancelled':
      return { custom_id: line.customId, result: { type: 'canceled' } };
    case 'expired':
      return { custom_id: line.customId, result: { type: 'expired' } };
    default:
      return undefined;
  }
}
