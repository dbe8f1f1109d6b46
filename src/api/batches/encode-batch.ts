import type { BatchRecord } from '../../batches/db/batches.js';
import type { FileRecord } from '../../batches/db/files.js';

/** Unix seconds, as OpenAI's objects carry their times; null stays null. */
function seconds(at: string | null): number | null {
  return at === null ? null : Math.floor(Date.parse(at) / 1000);
}

/** OpenAI's file object (https://platform.openai.com/docs/api-reference/files/object). */
export function encodeFile(file: FileRecord): Record<string, unknown> {
  return {
    id: file.id,
    object: 'file',
    bytes: file.bytes,
    created_at: seconds(file.createdAt),
    expires_at: null,
    filename: file.filename,
    purpose: file.purpose,
    status: 'processed',
    status_details: null,
  };
}

/** OpenAI's batch object (https://platform.openai.com/docs/api-reference/batch/object), `request_counts` live. */
export function encodeBatch(batch: BatchRecord): Record<string, unknown> {
  return {
    id: batch.id,
    object: 'batch',
    endpoint: batch.endpoint,
    errors: batch.errors === null ? null : { object: 'list', data: batch.errors },
    input_file_id: batch.inputFileId,
    completion_window: batch.completionWindow,
    status: batch.status,
    output_file_id: batch.outputFileId,
    error_file_id: batch.errorFileId,
    created_at: seconds(batch.createdAt),
    in_progress_at: seconds(batch.inProgressAt),
    expires_at: seconds(batch.expiresAt),
    finalizing_at: seconds(batch.finalizingAt),
    completed_at: seconds(batch.completedAt),
    failed_at: seconds(batch.failedAt),
    expired_at: seconds(batch.expiredAt),
    cancelling_at: seconds(batch.cancellingAt),
    cancelled_at: seconds(batch.cancelledAt),
    request_counts: { total: batch.total, completed: batch.completed, failed: batch.failed },
    metadata: batch.metadata,
  };
}
