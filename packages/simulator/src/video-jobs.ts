import type { VideoDirectives } from './video-directives.js';

export type VideoProtocol = 'openai' | 'gemini';
export type VideoJobStatus = 'queued' | 'in_progress' | 'completed' | 'failed';

export interface VideoJob {
  /** OpenAI: the video id; Gemini: the operation name `models/{model}/operations/{id}`. */
  id: string;
  /** Gemini: the file id of the finished video. */
  fileId: string;
  protocol: VideoProtocol;
  model: string;
  prompt: string;
  seconds: number;
  size: string | null;
  createdAt: number;
  durationMs: number;
  /** Progress (percent) at which the job fails; undefined when it succeeds. */
  failAt?: number;
}

export interface VideoJobStats {
  protocol: VideoProtocol;
  model: string;
  polls: number;
  /** The most polls of this job that were in flight at the same moment. */
  maxConcurrentPolls: number;
  downloads: number;
}

export interface VideoStats {
  /** Submissions received (`POST /videos`, `:predictLongRunning`), refused ones included. */
  submissions: number;
  /** Jobs created. */
  accepted: number;
  polls: number;
  downloads: number;
  /** The most polls of any one job in flight at the same moment: 1 when polling is exclusive. */
  maxConcurrentPolls: number;
  /** Storage downloads (after Gemini's redirect) that still carried the API key: should stay 0. */
  keyOnStorage: number;
  jobs: Record<string, VideoJobStats>;
}

/**
 * The simulator's video jobs. A job's state is a function of the time since its submission:
 * queued at 0 %, in progress in between, completed after `durationMs`, or failed at `failAt` %.
 */
export class VideoJobStore {
  private readonly jobs = new Map<string, VideoJob>();
  private readonly open = new Map<string, number>();
  private counts = emptyStats();
  private sequence = 0;

  constructor(private readonly defaultDurationMs: number) {}

  create(input: { protocol: VideoProtocol; model: string; prompt: string; seconds: number; size: string | null; directives: VideoDirectives }): VideoJob {
    this.sequence += 1;
    const suffix = `${Date.now().toString(36)}${this.sequence}`;
    const id = input.protocol === 'openai' ? `video_sim_${suffix}` : `models/${input.model}/operations/op${suffix}`;
    const failAt = input.directives.fail_at ?? (input.directives.fail ? 100 : undefined);
    const job: VideoJob = {
      id,
      fileId: `file${suffix}`,
      protocol: input.protocol,
      model: input.model,
      prompt: input.prompt,
      seconds: input.seconds,
      size: input.size,
      createdAt: Date.now(),
      durationMs: input.directives.video_ms ?? this.defaultDurationMs,
      failAt,
    };
    this.jobs.set(id, job);
    this.counts.accepted += 1;
    this.counts.jobs[id] = { protocol: input.protocol, model: input.model, polls: 0, maxConcurrentPolls: 0, downloads: 0 };
    return job;
  }

  get(id: string): VideoJob | undefined {
    return this.jobs.get(id);
  }

  byFileId(fileId: string): VideoJob | undefined {
    for (const job of this.jobs.values()) if (job.fileId === fileId) return job;
    return undefined;
  }

  stateOf(job: VideoJob, now = Date.now()): { status: VideoJobStatus; progress: number } {
    const elapsed = now - job.createdAt;
    const progress = job.durationMs <= 0 ? 100 : Math.min(100, Math.floor((elapsed / job.durationMs) * 100));
    if (job.failAt !== undefined && progress >= job.failAt) return { status: 'failed', progress: job.failAt };
    if (progress >= 100) return { status: 'completed', progress: 100 };
    return { status: progress <= 0 ? 'queued' : 'in_progress', progress: Math.max(0, progress) };
  }

  recordSubmission(): void {
    this.counts.submissions += 1;
  }

  /** Marks a poll of `job` as started; call the answer to mark it finished. */
  startPoll(job: VideoJob): () => void {
    const open = (this.open.get(job.id) ?? 0) + 1;
    this.open.set(job.id, open);
    this.counts.polls += 1;
    const stats = this.counts.jobs[job.id];
    if (stats) {
      stats.polls += 1;
      stats.maxConcurrentPolls = Math.max(stats.maxConcurrentPolls, open);
    }
    this.counts.maxConcurrentPolls = Math.max(this.counts.maxConcurrentPolls, open);
    let finished = false;
    return () => {
      if (finished) return;
      finished = true;
      this.open.set(job.id, (this.open.get(job.id) ?? 1) - 1);
    };
  }

  recordDownload(job: VideoJob): void {
    this.counts.downloads += 1;
    const stats = this.counts.jobs[job.id];
    if (stats) stats.downloads += 1;
  }

  recordKeyOnStorage(): void {
    this.counts.keyOnStorage += 1;
  }

  stats(): VideoStats {
    return structuredClone(this.counts);
  }

  /** Clears the counters; jobs keep running (a gateway may still be polling them). */
  reset(): void {
    this.counts = emptyStats();
  }
}

function emptyStats(): VideoStats {
  return { submissions: 0, accepted: 0, polls: 0, downloads: 0, maxConcurrentPolls: 0, keyOnStorage: 0, jobs: {} };
}
