import type { Reservation } from '../billing/ledger.js';
import type { Clock } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import { UpstreamError } from '../errors/upstream-error.js';
import type { Logger } from 'pino';
import type { Store } from '../store/create-store.js';
import {
  claimDueTasks,
  deleteUnsubmittedTask,
  findTaskByIdempotencyKey,
  findTaskForAccount,
  insertTask,
  recordPendingPoll,
  recordSubmission,
  releaseTaskLease,
  rerouteUnsubmittedTask,
} from './db/tasks.js';
import { isDatabaseUnavailable } from '../store/database-errors.js';
import { endTask, type TaskEnding } from './finish-task.js';
import { defaultTaskSchedule, planBackoffDelay, planPendingDelay } from './plan-next-poll.js';
import type { PollOutcome, TaskHandler, TaskRecord, TaskSchedule, TaskStatus } from './task-types.js';

/** The services the engine itself uses; its handlers get the whole `Context` it was built with. */
export interface TaskEngineDependencies {
  store: Store;
  clock: Clock;
  createId: IdGenerator;
  logger: Logger;
}

export interface TaskEngineOptions {
  /** This process: the lease owner it writes. */
  instanceId: string;
  /** How long a claim holds a task; a poll is aborted at half of it. Default 60 s. */
  leaseMs?: number;
  /** Tasks claimed per round. Default 25. */
  batchSize?: number;
  /** Polls in flight at once within a round. Default 8. */
  concurrency?: number;
  /** Pause of the worker loop when a round found nothing due. Default 1 s. */
  idleMs?: number;
  /** Per-kind schedule overrides from the config; they win over the handler's own. */
  schedules?: Record<string, Partial<TaskSchedule>>;
  /** Jitter source, [0, 1). Default Math.random. */
  random?: () => number;
}

/** What a caller gives to create a task; the engine adds the id, the schedule and the lease. */
export interface NewTask extends Pick<TaskRecord, 'accountId' | 'keyId' | 'kind' | 'model' | 'provider' | 'input' | 'idempotencyKey' | 'requestId'> {
  reservation: Reservation | null;
  /**
   * The provider's job id when the job was submitted before the task is created. Without it the
   * task is created leased to this instance for `submitWithinMs`, and the caller must follow
   * with `markSubmitted` or `discardUnsubmitted`; a task whose submitter died is failed (and
   * released) by whichever worker claims it once that lease runs out.
   */
  providerJobId?: string;
  submitWithinMs?: number;
}

export type CreateTaskOutcome = { created: true; task: TaskRecord } | { created: false; existing: TaskRecord };

/**
 * The durable task engine (`context.tasks`). Tasks live in the `tasks` table; any number of
 * instances run `start()` on one database, and each due task is polled by one of them at a time
 * (a lease in the row, claimed atomically). Every terminal transition is a compare-and-set done
 * in the transaction that settles the task's reservation, so a task is charged exactly once.
 *
 * Kinds plug in with `registerHandler(handler)`: the handler polls the provider; the engine owns
 * leases, schedules, backoff, maximum age, settlement and the request log. See `src/tasks/README.md`
 * (adding a kind), `docs/operations.md` ("Shutdown, reservations and faults": the task worker)
 * and `docs/configuration.md` (`tasks.<kind>`).
 */
export class TaskEngine<Context extends TaskEngineDependencies = TaskEngineDependencies> {
  private readonly handlers = new Map<string, TaskHandler<Context>>();
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly idleMs: number;
  private readonly random: () => number;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<number> | undefined;
  private readonly stopping = new AbortController();

  constructor(
    private readonly getContext: () => Context,
    private readonly options: TaskEngineOptions,
  ) {
    this.leaseMs = options.leaseMs ?? 60_000;
    this.batchSize = options.batchSize ?? 25;
    this.concurrency = options.concurrency ?? 8;
    this.idleMs = options.idleMs ?? 1_000;
    this.random = options.random ?? Math.random;
  }

  get instanceId(): string {
    return this.options.instanceId;
  }

  /** Adds a task kind. Register every kind before `start()`; a second handler for a kind replaces the first. */
  registerHandler(handler: TaskHandler<Context>): void {
    this.handlers.set(handler.kind, handler);
  }

  /** The kind's schedule: the engine defaults, then the handler's, then the config's. */
  scheduleOf(kind: string): TaskSchedule {
    const schedule = { ...defaultTaskSchedule, ...this.handlers.get(kind)?.schedule, ...this.options.schedules?.[kind] };
    // A configured shorter poll interval also shortens the wait before the first poll.
    return { ...schedule, firstPollMs: Math.min(schedule.firstPollMs, schedule.minPollMs) };
  }

  /** How long a task's reservation must live: past its maximum age, so that the task, not the sweeper, ends it. */
  reservationLifetimeMs(kind: string): number {
    return this.scheduleOf(kind).maxAgeMs + 60 * 60 * 1000;
  }

  /** Inserts a task, or answers the account's existing task under the same idempotency key. */
  async create(input: NewTask): Promise<CreateTaskOutcome> {
    const context = this.getContext();
    const now = context.clock.now();
    const schedule = this.scheduleOf(input.kind);
    const submitted = input.providerJobId !== undefined;
    const id = context.createId(/^[a-z]{1,16}$/.test(input.kind) ? input.kind : 'task');
    const inserted = await insertTask(context.store.db, {
      id,
      accountId: input.accountId,
      keyId: input.keyId,
      kind: input.kind,
      model: input.model,
      provider: input.provider,
      input: input.input,
      providerJobId: input.providerJobId ?? null,
      reservationId: input.reservation && input.reservation.amount > 0n ? input.reservation.id : null,
      reserved: input.reservation?.amount ?? 0n,
      idempotencyKey: input.idempotencyKey,
      requestId: input.requestId,
      nextPollAt: new Date(now.getTime() + (submitted ? schedule.firstPollMs : 0)).toISOString(),
      leaseOwner: submitted ? null : this.instanceId,
      leaseExpiresAt: submitted ? null : new Date(now.getTime() + (input.submitWithinMs ?? this.leaseMs)).toISOString(),
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + schedule.maxAgeMs).toISOString(),
    });
    if (!inserted) {
      const existing = input.idempotencyKey === null ? undefined : await findTaskByIdempotencyKey(context.store.db, input.accountId, input.idempotencyKey);
      if (!existing) throw new Error(`task ${id} was not inserted and no task holds its idempotency key`);
      return { created: false, existing };
    }
    const task = await findTaskForAccount(context.store.db, input.accountId, id);
    if (!task) throw new Error(`task ${id} vanished after its insert`);
    return { created: true, task };
  }

  /** Records the provider's job id of a task created without one; from then on workers poll it. */
  async markSubmitted(task: TaskRecord, submission: { providerJobId: string; status?: TaskStatus; progress?: number }): Promise<TaskRecord> {
    const context = this.getContext();
    const now = context.clock.now();
    const status = submission.status === 'in_progress' ? 'in_progress' : 'queued';
    const recorded = await recordSubmission(context.store.db, {
      id: task.id,
      owner: this.instanceId,
      providerJobId: submission.providerJobId,
      status,
      progress: submission.progress ?? 0,
      nextPollAt: new Date(now.getTime() + this.scheduleOf(task.kind).firstPollMs).toISOString(),
      now: now.toISOString(),
    });
    if (!recorded) context.logger.error({ task: task.id }, 'task submitted after its submission lease ran out; a worker may have failed it');
    return (await findTaskForAccount(context.store.db, task.accountId, task.id)) ?? task;
  }

  /** Before submission, moves the task to another endpoint (fail-over) and its new reservation. */
  async reroute(task: TaskRecord, route: { model: string; provider: string; input: Record<string, unknown>; reservation: Reservation }): Promise<boolean> {
    const context = this.getContext();
    return rerouteUnsubmittedTask(context.store.db, {
      id: task.id,
      owner: this.instanceId,
      model: route.model,
      provider: route.provider,
      input: route.input,
      reservationId: route.reservation.amount > 0n ? route.reservation.id : null,
      reserved: route.reservation.amount,
      now: context.clock.now().toISOString(),
    });
  }

  /** Deletes a task no provider accepted (its reservation is the caller's to release); frees its idempotency key. */
  async discardUnsubmitted(task: TaskRecord): Promise<void> {
    await deleteUnsubmittedTask(this.getContext().store.db, task.id, this.instanceId);
  }

  /** An account's task; other accounts' tasks are not found. */
  find(accountId: string, id: string): Promise<TaskRecord | undefined> {
    return findTaskForAccount(this.getContext().store.db, accountId, id);
  }

  findByIdempotencyKey(accountId: string, key: string): Promise<TaskRecord | undefined> {
    return findTaskByIdempotencyKey(this.getContext().store.db, accountId, key);
  }

  /** Claims the tasks due now and polls each once. Answers how many it claimed. Tests drive the engine with it. */
  runOnce(): Promise<number> {
    // One round at a time per engine: the loop and a test's call never overlap.
    const previous = this.round ?? Promise.resolve(0);
    const next = previous.catch(() => 0).then(() => this.runRound());
    this.round = next;
    return next.finally(() => {
      if (this.round === next) this.round = undefined;
    });
  }

  /** Starts the worker loop (in `serve`). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops claiming, lets the polls in flight finish (aborted after `graceMs`), and resolves when idle. */
  async stop(graceMs = 10_000): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const round = this.round;
    if (!round) return;
    const deadline = setTimeout(() => this.stopping.abort(), graceMs);
    try {
      await round.catch(() => 0);
    } finally {
      clearTimeout(deadline);
    }
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.runOnce()
        .then((claimed) => this.schedule(claimed >= this.batchSize ? 0 : this.idleMs))
        .catch((error: unknown) => {
          // A database that cannot answer is one outage episode, warned once by the store
          // (store/log-outage-episodes.ts), not an error line per round.
          if (isDatabaseUnavailable(error)) this.getContext().logger.debug({ err: error }, 'task round failed: the database cannot answer');
          else this.getContext().logger.error({ err: error }, 'task round failed');
          this.schedule(this.idleMs);
        });
    }, delayMs);
    this.timer.unref();
  }

  private async runRound(): Promise<number> {
    const context = this.getContext();
    const now = context.clock.now();
    const claimed = await claimDueTasks(context.store.db, context.store.dialect, {
      owner: this.instanceId,
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + this.leaseMs).toISOString(),
      limit: this.batchSize,
    });
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) {
        const task = claimed[next++];
        try {
          await this.process(task);
        } catch (error) {
          // A store failure mid-way: the lease runs out and another round picks the task up again.
          context.logger.error({ err: error, task: task.id }, 'task poll could not be recorded');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, claimed.length) }, worker));
    return claimed.length;
  }

  private async process(task: TaskRecord): Promise<void> {
    const context = this.getContext();
    const handler = this.handlers.get(task.kind);
    const schedule = this.scheduleOf(task.kind);
    if (this.stopping.signal.aborted) {
      await releaseTaskLease(context.store.db, { id: task.id, owner: this.instanceId, nextPollAt: context.clock.now().toISOString() });
      return;
    }
    if (!handler) {
      // Perhaps an instance of a newer version knows the kind: leave the task to it for a while.
      context.logger.warn({ task: task.id, kind: task.kind }, 'no handler for this task kind');
      await releaseTaskLease(context.store.db, { id: task.id, owner: this.instanceId, nextPollAt: this.later(schedule.maxBackoffMs) });
      return;
    }
    if (task.providerJobId === null) {
      // Its creating request died between the insert and the provider's answer: whether the
      // provider got the job is unknown, and submitting again could run (and cost) it twice.
      await this.end(task, { status: 'failed', error: 'The task was interrupted before the provider confirmed it; nothing was charged', errorCode: 'submission_interrupted' }, handler);
      return;
    }
    const signal = AbortSignal.any([this.stopping.signal, AbortSignal.timeout(Math.max(1_000, Math.floor(this.leaseMs / 2)))]);
    let outcome: PollOutcome;
    try {
      outcome = await handler.poll(task, context, { signal });
    } catch (error) {
      if (this.stopping.signal.aborted) {
        // Shutting down, not a provider failure: hand the task on without counting an attempt.
        await releaseTaskLease(context.store.db, { id: task.id, owner: this.instanceId, nextPollAt: context.clock.now().toISOString() });
        return;
      }
      await this.recordFailedPoll(task, schedule, error);
      return;
    }
    if (outcome.state === 'completed') {
      await this.end(task, { status: 'completed', cost: outcome.cost, result: outcome.result }, handler);
      return;
    }
    if (outcome.state === 'failed') {
      await this.end(task, { status: 'failed', error: outcome.error, errorCode: 'provider_failed' }, handler);
      return;
    }
    const now = context.clock.now();
    if (this.isExpired(task, now)) {
      await this.end(task, { status: 'failed', error: `The task did not finish within ${formatDuration(schedule.maxAgeMs)}; nothing was charged`, errorCode: 'task_timeout' }, handler);
      return;
    }
    const progress = clampProgress(outcome.progress ?? task.progress);
    const status: TaskStatus = task.status === 'in_progress' || outcome.started || progress > 0 ? 'in_progress' : 'queued';
    const delay = planPendingDelay(schedule, now.getTime() - Date.parse(task.createdAt), outcome.retryAfterMs, this.random);
    await recordPendingPoll(context.store.db, {
      id: task.id,
      owner: this.instanceId,
      rowVersion: task.rowVersion,
      status,
      progress: Math.max(progress, task.progress),
      attempts: 0,
      nextPollAt: this.nextPollAt(task, now, delay),
      now: now.toISOString(),
    });
  }

  /** A poll that threw: the provider is down or answered 5xx. Back off and try again, until the task's maximum age. */
  private async recordFailedPoll(task: TaskRecord, schedule: TaskSchedule, error: unknown): Promise<void> {
    const context = this.getContext();
    const now = context.clock.now();
    if (this.isExpired(task, now)) {
      await this.end(task, { status: 'failed', error: `The provider could not be reached before the task's maximum age of ${formatDuration(schedule.maxAgeMs)}; nothing was charged`, errorCode: 'task_timeout' }, this.handlers.get(task.kind)!);
      return;
    }
    const upstream = error instanceof UpstreamError ? error : undefined;
    if (!upstream) context.logger.error({ err: error, task: task.id }, 'task handler failed');
    else context.logger.warn({ task: task.id, provider: upstream.provider, status: upstream.status, attempts: task.attempts + 1 }, 'task poll failed; backing off');
    const retryAfterMs = upstream?.retryAfterSeconds !== undefined ? upstream.retryAfterSeconds * 1000 : undefined;
    const delay = planBackoffDelay(schedule, task.attempts + 1, retryAfterMs, this.random);
    await recordPendingPoll(context.store.db, {
      id: task.id,
      owner: this.instanceId,
      rowVersion: task.rowVersion,
      status: task.status,
      progress: task.progress,
      attempts: task.attempts + 1,
      nextPollAt: this.nextPollAt(task, now, delay),
      now: now.toISOString(),
    });
  }

  private async end(task: TaskRecord, ending: TaskEnding, handler: TaskHandler<Context> | undefined): Promise<void> {
    const context = this.getContext();
    const charged = await endTask(context, task, ending, { rowVersion: task.rowVersion, endpoint: handler?.endpoint ?? `/${task.kind}s`, paid: handler?.paid });
    if (charged === null) context.logger.warn({ task: task.id }, 'task was ended elsewhere; nothing done here');
    else context.logger.info({ task: task.id, status: ending.status, charged: charged.toString() }, 'task ended');
  }

  private isExpired(task: TaskRecord, now: Date): boolean {
    const expiresAt = task.expiresAt ? Date.parse(task.expiresAt) : Date.parse(task.createdAt) + this.scheduleOf(task.kind).maxAgeMs;
    return now.getTime() >= expiresAt;
  }

  /** Never past the task's deadline: the poll at the deadline is the one that fails it. */
  private nextPollAt(task: TaskRecord, now: Date, delayMs: number): string {
    const at = now.getTime() + delayMs;
    const expiresAt = task.expiresAt ? Date.parse(task.expiresAt) : Number.POSITIVE_INFINITY;
    return new Date(Math.min(at, Math.max(expiresAt, now.getTime()))).toISOString();
  }

  private later(delayMs: number): string {
    return new Date(this.getContext().clock.now().getTime() + delayMs).toISOString();
  }
}

function clampProgress(progress: number): number {
  return Number.isFinite(progress) ? Math.min(100, Math.max(0, Math.round(progress))) : 0;
}

function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}
