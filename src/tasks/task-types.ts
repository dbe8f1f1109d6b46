
/**
 * Durable asynchronous jobs (videos, slow image jobs). A task row is the single source of
 * truth: the engine polls due tasks under a lease, and moves a task to a terminal state by
 * compare-and-set, so the reservation is settled exactly once whatever crashes or races.
 */
export type TaskStatus = 'queued' | 'in_progress' | 'completed' | 'failed';

export const terminalTaskStatuses: readonly TaskStatus[] = ['completed', 'failed'];

export interface TaskRecord {
  id: string;
  accountId: string;
  keyId: string | null;
  /** Which handler runs it: 'video', 'image', … */
  kind: string;
  /** Catalog model id. */
  model: string;
  /** Provider id from the config. */
  provider: string;
  status: TaskStatus;
  /** 0–100. */
  progress: number;
  /** The validated request, as the handler needs it (JSON). */
  input: Record<string, unknown>;
  /** The provider's job id, set once the job was submitted. */
  providerJobId: string | null;
  reservationId: string | null;
  reserved: bigint;
  cost: bigint | null;
  error: string | null;
  /** Handler-defined result (URLs, b64 data …), JSON. */
  result: Record<string, unknown> | null;
  idempotencyKey: string | null;
  /** Consecutive polls that failed (provider unreachable, 5xx); reset by an answer. */
  attempts: number;
  /** The request that created the task: its `x-request-id` and its request log row. */
  requestId: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  /** Past this the engine fails the task and releases its reservation. */
  expiresAt: string | null;
  /** Bumped by every claim and every update: the compare-and-set token. */
  rowVersion: number;
}

/** What one poll of the provider found. */
export type PollOutcome =
  | { state: 'pending'; progress?: number; /** The provider's hint for the next poll. */ retryAfterMs?: number; /** The provider started working on it. */ started?: boolean }
  | { state: 'completed'; cost: bigint; result: Record<string, unknown> }
  | { state: 'failed'; error: string };

/** How often a kind is polled and how long its tasks may run. Every field has a default. */
export interface TaskSchedule {
  /** Age after which an unfinished task fails and its reservation is released. Default 2 h. */
  maxAgeMs: number;
  /** Delay before the first poll after submission. Default 2 s. */
  firstPollMs: number;
  /** Shortest and longest pause between two polls of a pending task. Defaults 2 s and 30 s. */
  minPollMs: number;
  maxPollMs: number;
  /** Longest pause after failed polls (provider outage), backing off exponentially. Default 60 s. */
  maxBackoffMs: number;
}

/**
 * The protocol-specific part of a task kind: how to poll the provider for it. `Context` is what
 * the engine hands to `poll` (the app context), a parameter so that the engine, one of that
 * context's services, does not import it.
 */
export interface TaskHandler<Context = unknown> {
  kind: string;
  /** The API path recorded in the request log row of a finished task. Default `/{kind}s`. */
  endpoint?: string;
  /** Overrides of the engine's default schedule for this kind. */
  schedule?: Partial<TaskSchedule>;
  /**
   * False for work that is no paid call (an alert's delivery): its end is the compare-and-set
   * alone, with no settlement and no request log row, so it never shows among the account's
   * requests or in its usage. Default true.
   */
  paid?: boolean;
  /**
   * Asks the provider where the job stands. Throwing an `UpstreamError` (provider unreachable,
   * 5xx) is not a failure of the task: the engine backs off and polls again until the task's
   * maximum age. `signal` aborts when the poll outlives its share of the lease or the engine stops.
   */
  poll(task: TaskRecord, context: Context, options: { signal: AbortSignal }): Promise<PollOutcome>;
}
