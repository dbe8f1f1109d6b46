import { nanoToUsd } from '../../core/money.js';
import type { TaskRecord } from '../../tasks/task-types.js';

/**
 * Video task answers. `data` is the contract's shape (§6). The same object also carries, at the
 * top level, OpenAI's video job fields (`id`, `object: "video"`, `status`, `progress`,
 * `created_at` in Unix seconds …), so that OpenAI's SDK (`videos.create`, `videos.retrieve`)
 * reads the gateway's answer as it reads OpenAI's.
 */
export function encodeCreatedVideo(task: TaskRecord): Record<string, unknown> {
  return {
    ...openAiVideoFields(task, 'queued'),
    data: { id: task.id, status: 'queued', model: task.model, created_at: task.createdAt, polling_url: pollingUrl(task) },
  };
}

export function encodeVideo(task: TaskRecord): Record<string, unknown> {
  return {
    ...openAiVideoFields(task, task.status),
    data: {
      id: task.id,
      status: task.status,
      progress: task.status === 'completed' ? 100 : task.progress,
      model: task.model,
      created_at: task.createdAt,
      completed_at: task.completedAt,
      error: task.status === 'failed' ? (task.error ?? 'The video failed') : null,
      cost: task.status === 'completed' || task.status === 'failed' ? nanoToUsd(task.cost ?? 0n) : null,
      urls: task.status === 'completed' ? [`${pollingUrl(task)}/content`] : [],
      polling_url: pollingUrl(task),
      seconds: task.input.seconds ?? null,
    },
  };
}

function pollingUrl(task: TaskRecord): string {
  return `/v1/videos/${task.id}`;
}

function openAiVideoFields(task: TaskRecord, status: string): Record<string, unknown> {
  const size = typeof task.input.size === 'string' ? task.input.size : null;
  return {
    id: task.id,
    object: 'video',
    model: task.model,
    status,
    progress: status === 'completed' ? 100 : status === 'queued' ? 0 : task.progress,
    created_at: unixSeconds(task.createdAt),
    completed_at: status === 'completed' || status === 'failed' ? unixSeconds(task.completedAt) : null,
    expires_at: null,
    error: status === 'failed' ? { code: 'video_generation_failed', message: task.error ?? 'The video failed' } : null,
    prompt: typeof task.input.prompt === 'string' ? task.input.prompt : null,
    seconds: task.input.seconds === undefined ? null : String(task.input.seconds),
    size,
    remixed_from_video_id: null,
  };
}

function unixSeconds(iso: string | null): number | null {
  return iso === null ? null : Math.floor(Date.parse(iso) / 1000);
}
