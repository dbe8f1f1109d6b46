import { nanoToUsd } from '../../core/money.js';
import type { TaskRecord } from '../../tasks/task-types.js';

/** The status of an asynchronous media request, as the 202 and `GET /media/requests/{id}` show it. */
export function encodeMediaRequestStatus(task: TaskRecord): Record<string, unknown> {
  return {
    id: task.id,
    object: 'media.request',
    status: task.status,
    progress: task.progress,
    model: task.model,
    created_at: task.createdAt,
    completed_at: task.completedAt,
    error: task.error,
    cost: task.cost === null ? null : nanoToUsd(task.cost),
    polling_url: `/v1/media/requests/${task.id}`,
  };
}
