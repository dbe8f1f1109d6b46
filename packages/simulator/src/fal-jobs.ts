import { randomUUID } from 'node:crypto';

export interface FalJob {
  id: string;
  modelId: string;
  prompt: string;
  count: number;
  width: number;
  height: number;
  createdAt: number;
  durationMs: number;
  fail: boolean;
}

export type FalJobStatus = 'IN_QUEUE' | 'IN_PROGRESS' | 'COMPLETED';

export interface FalStats {
  submitted: number;
  statusPolls: number;
  resultFetches: number;
  fileDownloads: number;
}

/**
 * fal queue jobs held in memory. A job is IN_QUEUE for its first fifth, IN_PROGRESS until its
 * duration has passed, then COMPLETED; a duration of 0 is complete at the first poll.
 */
export class FalJobStore {
  private readonly jobs = new Map<string, FalJob>();
  private counts: FalStats = { submitted: 0, statusPolls: 0, resultFetches: 0, fileDownloads: 0 };

  constructor(
    private readonly defaultDurationMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  create(input: Omit<FalJob, 'id' | 'createdAt' | 'durationMs'> & { durationMs?: number }): FalJob {
    const job: FalJob = { ...input, id: randomUUID(), createdAt: this.now(), durationMs: input.durationMs ?? this.defaultDurationMs };
    this.jobs.set(job.id, job);
    this.counts.submitted += 1;
    return job;
  }

  get(id: string): FalJob | undefined {
    return this.jobs.get(id);
  }

  statusOf(job: FalJob): FalJobStatus {
    const elapsed = this.now() - job.createdAt;
    if (elapsed >= job.durationMs) return 'COMPLETED';
    return elapsed < job.durationMs / 5 ? 'IN_QUEUE' : 'IN_PROGRESS';
  }

  count(event: Exclude<keyof FalStats, 'submitted'>): void {
    this.counts[event] += 1;
  }

  stats(): FalStats {
    return { ...this.counts };
  }

  reset(): void {
    this.jobs.clear();
    this.counts = { submitted: 0, statusPolls: 0, resultFetches: 0, fileDownloads: 0 };
  }
}
