import { GatewayError } from '../errors/gateway-error.js';
import { isDatabaseUnavailable } from '../store/database-errors.js';
import { yieldToEventLoop } from '../store/run-in-batches.js';
import pino from 'pino';
import { formatScaled, nanoToUsd } from '../core/money.js';
import { beatInstance, registerInstance, removeInstance, removeStaleInstances, type HeartbeatTime } from '../store/repositories/instances.js';
import { listExpiredReservations, listOrphanedReservations, readKeyReset, readMemberReset, readSpendable } from './db/ledger.js';
import { keyPeriodsDue } from './roll-key-periods.js';
import { nextPeriodStart } from './limit-periods.js';
import type { RequestRecord } from './request-record.js';
import { releaseOnce, reserveOnce, type ReserveOutcome } from './reserve-funds.js';
import type { Clock } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import type { Store } from '../store/create-store.js';
import { FundLeases } from './lease-funds.js';
import type { LeaseSignals } from './lease-signals.js';
import { RequestLog } from './request-log.js';
import type { BookOutcome } from './plan-books.js';
import type { LeaseSettings } from '../config/read-lease-config.js';

export interface Reservation {
  id: string;
  accountId: string;
  keyId: string | null;
  amount: bigint;
  /** The request it was made for (its ledger entries name it). */
  requestId?: string;
  /** Set when it was reserved in memory within this instance's lease: the lease row's id. */
  leaseId?: string;
}

/** Releases a sweep makes between two yields to the event loop. */
export const sweepReleaseBatch = 50;

/** The services the ledger uses: its own list, so that the app context holding the ledger is not imported by it. */
export interface LedgerDependencies {
  store: Store;
  clock: Clock;
  createId: IdGenerator;
}

/** What `Ledger.reserve` is asked for. */
export interface ReserveRequest {
  accountId: string;
  keyId: string | null;
  requestId: string;
  amount: bigint;
  durable?: boolean;
  lifetimeMs?: number;
}

/** How long a reservation may stay open before the sweeper assumes its request died. */
export const reservationLifetimeMs = 2 * 60 * 60 * 1000;

/**
 * Reserve before a provider is called, settle after (docs/api-decisions.md §5). Every reservation ends in
 * exactly one settle or release; one that is never ended (a crash) is released by
 * the sweep once it outlives its bound or its instance. A zero amount (free models) touches no table.
 */
export interface LedgerOptions {
  /** This process; its reservations are released by others once its heartbeat is older than `instanceTimeoutMs`. */
  instanceId: string;
  instanceTimeoutMs: number;
  /** The group-committing writer that settles; a private one (logging nowhere) when absent. */
  books?: RequestLog;
  /**
   * How long a settlement waits for its commit before the request goes on without it (the
   * database is down): the charge stays queued in memory and is written when the database is
   * back. That wait is the only window in which an answer is delivered before its charge is
   * durable; it is lost only if the process dies too within it.
   */
  settleWaitMs?: number;
  /** Told when this instance finds it was declared dead (its heartbeat row swept by another). */
  onFenced?: () => void;
  /** Reserve within per-instance leases (docs/leases.md); absent: every reservation goes to the database. */
  leases?: LeaseSettings;
  /**
   * While a settlement has waited this long for its commit (default 1000 ms), no reservation is
   * taken out of a lease: the database may be going silent, and an answer served out of a lease
   * then could precede its durable charge. The exact path asks the database instead.
   */
  leaseStallMs?: number;
  /**
   * PostgreSQL with leases: what the instances tell each other (key changes, spare asked for,
   * probes). Leases serve only while it confirms that what it heard is fresh (docs/leases.md).
   */
  signals?: LeaseSignals;
}

export class Ledger {
  private readonly books: RequestLog;
  private readonly leases: FundLeases | undefined;
  /** Times this instance found itself declared dead and registered again. */
  fenced = 0;
  /**
   * This instance's clock, read just before sending its last beat known to have committed.
   * Others release its reservations, leases included, only once that beat is `instanceTimeoutMs`
   * old (judged by the clock that stamped it, see `heartbeatTime`), so leases serve only while
   * this reading is younger than two thirds of that (the last third covers a late beat): an
   * instance that cannot beat, or that was declared dead, never hands out funds its lease rows
   * may no longer hold.
   */
  private beatConfirmedAt = Number.NEGATIVE_INFINITY;
  /** This process's request reservations not yet settled or released (`whenSettled`). */
  private readonly open = new Set<string>();
  private onAllSettled: (() => void) | undefined;

  constructor(
    private readonly context: LedgerDependencies,
    readonly options: LedgerOptions,
  ) {
    this.leases = options.leases ? new FundLeases(context, { ...options.leases, instanceId: options.instanceId, lifetimeMs: reservationLifetimeMs }) : undefined;
    this.books = options.books ?? new RequestLog({ store: context.store, logger: pino({ level: 'silent' }), now: () => context.clock.now(), createId: context.createId });
  }

  /**
   * Reserves `amount` or throws 402. A `durable` reservation (asynchronous tasks) belongs to no
   * instance and lives until `lifetimeMs` passes or its task ends it; others die with their instance.
   */
  async reserve(input: ReserveRequest): Promise<Reservation> {
    const id = this.context.createId('rsv');
    if (input.amount <= 0n) return { id, accountId: input.accountId, keyId: input.keyId, amount: 0n, requestId: input.requestId };
    // The first reservation of a new UTC day starts the keys' new limit periods (issue 49), so
    // that a key spent yesterday is not refused today. Not rolled (the database failing), a key
    // only reads as less free: the reservation goes on, and the books roll before they charge.
    const periods = keyPeriodsDue(this.context.store, this.context.clock.now());
    if (periods) await periods.catch(() => undefined);
    // While the database is known to be down, or settlements have stopped committing (it may be
    // going silent), a lease would answer before its charge can be durable: the exact path asks
    // the database instead, and refuses with 503 when it does not answer.
    if (
      this.leases &&
      !input.durable &&
      !this.context.store.isDown() &&
      this.books.oldestSettlementWaitMs() < (this.options.leaseStallMs ?? 1_000) &&
      this.context.clock.now().getTime() - this.beatConfirmedAt < (this.options.instanceTimeoutMs * 2) / 3 &&
      (this.options.signals?.confirmed() ?? true)
    ) {
      const leaseId = await this.leases.reserve(input.accountId, input.keyId, input.amount);
      if (leaseId) {
        this.open.add(id);
        return { id, accountId: input.accountId, keyId: input.keyId, amount: input.amount, requestId: input.requestId, leaseId };
      }
    }
    const reservation = { id, accountId: input.accountId, keyId: input.keyId, amount: input.amount, requestId: input.requestId };
    let outcome = await this.reserveExactly(id, input);
    if (outcome !== 'reserved' && this.leases) {
      // Leases of the account (any key, any instance) may hold what the request needs while no
      // request uses it: their spare goes back first, then the database is asked again.
      await this.reclaimSpare(input.accountId);
      outcome = await this.reserveExactly(id, input);
    }
    if (outcome !== 'reserved') {
      const resetsAt = outcome !== 'insufficient_balance' && input.keyId !== null ? await this.resetsAt(outcome, input.keyId) : null;
      throw insufficientFunds(outcome, input.amount, await this.spendable(input.accountId, input.keyId), resetsAt);
    }
    if (!input.durable) this.open.add(id);
    return reservation;
  }

  /** When the key's (or its member's) limit resets (the next period's start, ISO 8601), or null for a lifetime limit. */
  private async resetsAt(limit: 'key_limit' | 'member_limit', keyId: string): Promise<string | null> {
    const reset = limit === 'key_limit' ? await readKeyReset(this.context.store.db, keyId) : await readMemberReset(this.context.store.db, keyId);
    return reset === null ? null : nextPeriodStart(reset, this.context.clock.now()).toISOString();
  }

  /** The exact path: one reservation row of the request's own, or the reason it was refused. */
  private reserveExactly(id: string, input: ReserveRequest): Promise<ReserveOutcome> {
    const now = this.context.clock.now();
    return reserveOnce(this.context.store, {
      id,
      accountId: input.accountId,
      keyId: input.keyId,
      requestId: input.requestId,
      amount: input.amount,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + (input.lifetimeMs ?? reservationLifetimeMs)).toISOString(),
      instanceId: input.durable ? null : this.options.instanceId,
    }).catch((error: unknown) => {
      // The reservation may have committed with its answer lost: undo it once the database answers.
      if (isDatabaseUnavailable(error)) this.releaseLater(id);
      throw error;
    });
  }

  /** Reclaims in flight, by account: the requests that did not fit meanwhile wait for the same one. */
  private readonly reclaiming = new Map<string, Promise<void>>();

  /**
   * Every idle and surplus slice of the account comes back (issue 45): this instance's leases of
   * it, whatever their key, give back what no request holds, and so do the other instances'
   * (asked through `signals`, answered within `reclaimWaitMs`).
   */
  private reclaimSpare(accountId: string): Promise<void> {
    let running = this.reclaiming.get(accountId);
    if (!running) {
      running = Promise.all([this.leases!.giveBackSpare(accountId), this.options.signals?.reclaim(accountId)])
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => this.reclaiming.delete(accountId));
      this.reclaiming.set(accountId, running);
    }
    return running;
  }

  /**
   * The key's limits changed or the key was revoked: its leases on this instance, sized under
   * the old limit, serve no more requests, and their spare is given back before this resolves.
   */
  recallKey(keyId: string): Promise<void> {
    return this.leases?.recallKey(keyId) ?? Promise.resolve();
  }

  /** Every lease recalled (notifications of key changes may have been missed). */
  recallLeases(): Promise<void> {
    return this.leases?.recallAll() ?? Promise.resolve();
  }

  /**
   * The account's credits went down from outside (a refund, a dispute): every lease of it, on
   * this instance and the others, gives back what no request holds, so that its next request is
   * checked against the lowered balance (a negative one refuses it with 402) rather than served
   * out of a slice granted before. Resolves once the other instances answered (or `reclaimWaitMs`).
   */
  reclaimAccount(accountId: string): Promise<void> {
    return this.leases ? this.reclaimSpare(accountId) : Promise.resolve();
  }

  /** Another instance's request of the account did not fit: this instance's spare of it goes back. */
  giveBackSpare(accountId: string): Promise<void> {
    return this.leases?.giveBackSpare(accountId) ?? Promise.resolve();
  }

  /**
   * Charges the actual cost, even above the reservation (an admission ceiling, not a cap), from
   * the funds available; what they cannot cover is booked `uncollected`. The charge commits
   * together with the request's log row (`record`, whose cost becomes the charge) in the next
   * group-committed batch. A reservation swept meanwhile (this instance was declared dead) does
   * not make the call free: the cost is charged from the funds directly. Returns the charge.
   */
  async settle(reservation: Reservation, cost: bigint, record?: RequestRecord): Promise<bigint> {
    this.ended(reservation.id);
    if (reservation.amount === 0n && cost <= 0n) {
      if (record) await this.books.record(record);
      return 0n;
    }
    const requestId = record?.id ?? reservation.requestId ?? reservation.id;
    const { leaseId } = reservation;
    let settled: Promise<BookOutcome>;
    if (leaseId !== undefined && record === undefined) {
      // Without a request log row, a batch written twice (its commit's answer lost) could not
      // tell that it had taken this amount out of the lease row already. The amount moves into a
      // reservation row of the request's own first (idempotently), which the settlement deletes:
      // exactly once, as on the exact path.
      const own = { reservationId: reservation.id, accountId: reservation.accountId, keyId: reservation.keyId, requestId, cost };
      const settleOwn = () => this.books.settle(own);
      settled = this.leases!.carve(leaseId, reservation.id, requestId, reservation.amount).then(settleOwn, settleOwn);
    } else {
      const reservationId = reservation.amount === 0n ? null : (leaseId ?? reservation.id);
      settled = this.books.settle({ reservationId, leaseHeld: leaseId === undefined ? undefined : reservation.amount, accountId: reservation.accountId, keyId: reservation.keyId, requestId, cost }, record);
      if (leaseId !== undefined) {
        // Once committed (or never: the log was closed), the lease row no longer holds it for this request.
        const ended = () => this.leases!.settled(leaseId, reservation.amount);
        settled.then(ended, ended);
      }
    }
    const waitMs = this.options.settleWaitMs ?? 5_000;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), waitMs);
    });
    const outcome = await Promise.race([settled, late]).finally(() => clearTimeout(timer));
    // Not applied: a batch retried after its commit's answer was lost, already charged then.
    if (outcome) return outcome.applied ? outcome.charged : cost;
    // The database is not answering; the charge stays queued and is written once it is back.
    settled.catch(() => undefined);
    return cost;
  }

  /** This process's paid calls under way: reserved, not yet settled or released. */
  callsUnderWay(): number {
    return this.open.size;
  }

  /** Settled or released: its charge (if any) is queued for the books. */
  private ended(id: string): void {
    if (this.open.delete(id) && this.open.size === 0) this.onAllSettled?.();
  }

  /**
   * Resolves once every request reservation this process holds is settled or released (its
   * charge queued for the books), or after `timeoutMs`: at shutdown, requests whose connections
   * were just cut are still settling when the listener has closed, and closing the books before
   * them would lose their charges.
   */
  whenSettled(timeoutMs: number): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.onAllSettled = () => {
        clearTimeout(timer);
        this.onAllSettled = undefined;
        resolve();
      };
    });
  }

  /** Releases `id` in the background, retrying while the database does not answer (a few minutes at most). */
  private releaseLater(id: string, attempt = 0): void {
    const delay = Math.min(200 * 2 ** attempt, 10_000);
    setTimeout(() => {
      releaseOnce(this.context.store, id).catch(() => {
        if (attempt < 30) this.releaseLater(id, attempt + 1);
      });
    }, delay).unref();
  }

  async release(reservation: Reservation): Promise<void> {
    this.ended(reservation.id);
    if (reservation.amount === 0n) return;
    if (reservation.leaseId !== undefined) {
      this.leases!.giveBack(reservation.leaseId, reservation.amount);
      return;
    }
    await releaseOnce(this.context.store, reservation.id);
  }

  /**
   * What this instance's leases on the account hold for no request (0 without leases): the
   * account's `reserved` less this is what its requests hold (an operator's or a test's view).
   */
  leasedUnused(accountId: string): Promise<bigint> {
    return this.leases?.unused(accountId) ?? Promise.resolve(0n);
  }

  /** What the account (and key) could still reserve, for capping `max_tokens` to the funds. */
  spendable(accountId: string, keyId: string | null): Promise<bigint> {
    return readSpendable(this.context.store.db, accountId, keyId);
  }

  /** Announces this instance, so that others can tell when it dies. */
  async startInstance(): Promise<void> {
    const now = this.context.clock.now();
    await registerInstance(this.context.store.db, this.options.instanceId, this.heartbeatTime(now, 0));
    this.beatConfirmedAt = now.getTime();
  }

  /**
   * What a heartbeat is stamped with (`agoMs` 0) or judged stale against. On PostgreSQL, where
   * instances on several machines share the table, the database's clock: a beat is stamped no
   * earlier than it was sent, so by the time any sweep finds it a timeout old, a whole timeout
   * has passed since this instance read `now` before sending it, whatever the instances' clocks
   * say. This instance's own two-thirds rule (`reserve`) measures time elapsed on its own clock
   * from that reading, so no two clocks are compared anywhere. On SQLite (one process) its clock.
   */
  private heartbeatTime(now: Date, agoMs: number): HeartbeatTime {
    if (this.context.store.dialect === 'postgres') return { databaseClockAgoMs: agoMs };
    return new Date(now.getTime() - agoMs).toISOString();
  }

  /**
   * Beats this instance's heartbeat. When its row is gone, others declared it dead (it was
   * paused or cut off past the timeout) and released its reservations: it registers again, so
   * that its new reservations are held, and its settlements in flight charge from the funds.
   */
  async heartbeat(): Promise<boolean> {
    const now = this.context.clock.now();
    if (await beatInstance(this.context.store.db, this.options.instanceId, this.heartbeatTime(now, 0))) {
      this.beatConfirmedAt = Math.max(this.beatConfirmedAt, now.getTime());
      return true;
    }
    // Until registered again, reservations go the exact way (a lease opened now would be held
    // by an instance with no row, which any sweep releases as orphaned).
    this.fenced += 1;
    this.beatConfirmedAt = Number.NEGATIVE_INFINITY;
    await this.leases?.forget();
    await this.startInstance();
    this.options.onFenced?.();
    return false;
  }

  /** Gives back what leases unused for a while hold (with the heartbeat). */
  async returnIdleLeases(): Promise<void> {
    await this.leases?.returnIdle();
  }

  /**
   * Deletes this instance's lease rows, giving back all they hold: call once every settlement
   * out of them is committed (shutdown, after the books are flushed). Later reservations open
   * new leases.
   */
  async returnLeases(): Promise<void> {
    await this.leases?.close();
  }

  /** After a graceful shutdown has settled everything in flight. */
  async stopInstance(): Promise<void> {
    await this.returnLeases();
    await this.options.signals?.close();
    await removeInstance(this.context.store.db, this.options.instanceId);
  }

  /**
   * Releases the reservations nobody will settle: those of instances whose heartbeat stopped
   * (crashed), and those past their time bound that are durable or this instance's own
   * per-request ones (`listExpiredReservations`). Run at start and periodically; safe to run on
   * every instance at once, since settling is exactly-once. Returns how many were released.
   */
  async sweep(): Promise<number> {
    const now = this.context.clock.now();
    const staleBefore = this.heartbeatTime(now, this.options.instanceTimeoutMs);
    // Fenced first, released after: a stale instance's row goes before any of its reservations,
    // so a beat of its that comes after the release finds its row gone and it learns that it was
    // declared dead. (Released first, a beat landing between the two kept the row, and the
    // instance went on handing out a lease whose row had been released.)
    await removeStaleInstances(this.context.store.db, staleBefore);
    const ids = new Set([
      ...(await listOrphanedReservations(this.context.store.db, staleBefore, 1000)),
      ...(await listExpiredReservations(this.context.store.db, now.toISOString(), this.options.instanceId, 1000)),
    ]);
    let released = 0;
    let index = 0;
    for (const id of ids) {
      if (await releaseOnce(this.context.store, id)) released += 1;
      // Each release is one short transaction; on SQLite a run of them would hold the main
      // thread (an await of a finished statement yields to microtasks only): yield every batch.
      index += 1;
      if (index % sweepReleaseBatch === 0) await yieldToEventLoop();
    }
    return released;
  }
}

// Thrown inside the reservation transaction so that it rolls back the account's part.
/**
 * A 402 that states the amounts, as OpenRouter does: what the request may cost at most (its
 * reservation) and what the account or key can still spend, and what to do about it.
 */
function insufficientFunds(reason: Exclude<ReserveOutcome, 'reserved'>, needed: bigint, available: bigint, resetsAt: string | null = null): GatewayError {
  const amounts = `this request may cost up to ${formatUsd(needed)} USD and ${formatUsd(available)} USD is available`;
  const metadata = { requested: nanoToUsd(needed), available: nanoToUsd(available) };
  if (reason === 'key_limit') {
    // A limit that resets (issue 49) says when: the key may wait for it instead.
    const when = resetsAt === null ? '' : ` The limit resets at ${resetsAt}.`;
    return new GatewayError('insufficient_balance', `This key's spending limit does not cover the request: ${amounts} under the limit.${when} Raise the key's limit, or lower max_tokens.`, {
      metadata: resetsAt === null ? { ...metadata, limit_type: 'key_limit' } : { ...metadata, limit_type: 'key_limit', resets_at: resetsAt },
    });
  }
  if (reason === 'member_limit') {
    const when = resetsAt === null ? '' : ` The limit resets at ${resetsAt}.`;
    return new GatewayError('insufficient_balance', `The spending limit of the member who made this key does not cover the request: ${amounts} under the limit.${when} Ask an owner or admin to raise the member's limit, or lower max_tokens.`, {
      metadata: resetsAt === null ? { ...metadata, limit_type: 'member_limit' } : { ...metadata, limit_type: 'member_limit', resets_at: resetsAt },
    });
  }
  return new GatewayError('insufficient_balance', `Insufficient balance: ${amounts}. Add credits, or lower max_tokens.`, { metadata });
}

function formatUsd(nano: bigint): string {
  return formatScaled(nano, 9);
}
