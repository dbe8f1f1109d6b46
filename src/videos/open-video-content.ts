import type { AppContext } from '../app-context.js';
import { notFound } from '../errors/gateway-error.js';
import type { UpstreamResponse } from '../providers/shared/send-request.js';
import type { TaskRecord } from '../tasks/task-types.js';
import { videoCall } from './video-task-handler.js';
import type { CancelSignal } from '../core/cancel-signal.js';

/**
 * Opens a finished video's bytes at its provider, for the gateway to stream through. A task of
 * another account, or one not completed yet, has no content (404).
 */
export async function openVideoContent(context: AppContext, accountId: string, taskId: string, signal: CancelSignal): Promise<{ task: TaskRecord; response: UpstreamResponse }> {
  const task = await context.tasks.find(accountId, taskId);
  if (!task || task.kind !== 'video') throw notFound(`Video '${taskId}'`);
  if (task.status !== 'completed' || task.providerJobId === null) {
    throw notFound(`The content of video '${taskId}' (it is ${task.status}; content exists once it is completed)`);
  }
  const { adapter, call } = videoCall(task, context, signal);
  return { task, response: await adapter.openContent(task.providerJobId, task.result ?? {}, call) };
}
