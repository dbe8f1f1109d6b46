import type { Clock } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import type { Store } from '../store/create-store.js';
import { releaseOnce } from './reserve-funds.js';
import { isDatabaseUnavailable } from '../store/database-errors.js';
import { carveFromLease, growLease, shrinkLease, sqliteLeaseStatements, type GrowLease } from './db/leases.js';
import type SqliteDatabase from 'better-sqlite3';
import type { LeaseSettings } from '../config/read-lease-config.js';

/** The environment's lease settings, for this instance. */
export interface LeaseOptions extends Omit<LeaseSettings, 'recallBoundMs' | 'reclaimWaitMs'> {
  instanceId: string;
  lifetimeMs: number;
}

/** The services the leases use: their own list, not the app context that holds the ledger they serve. */
export interface FundLeasesDependencies {
  store: Store;
  clock: Clock;
  createId: IdGenerator;
}

interface Lease {
  id: string;
  accountId: string;
  keyId: string | null;
  /** Held by the lease row and handed to no request: what this instance may still reserve. */
  remaining: bigint;
  /** Handed to requests whose settlement has not committed yet. */
  inFlight: bigint;
  /** Below this, a top-up starts ahead of need. */
  lowWater: bigint;
  growing?: Promise<void>;
  /** The giving back that retiring it started: a second recall of the same lease waits for it. */
  ending?: Promise<void>;
  usedAt: number;
  /** Until then, no grant is asked for (the last one was refused, or its spare was reclaimed). */
  exactUntil: number;
  /**
   * Set when the key's limit changed or the key was revoked: the lease serves no request again
   * (it left the map at once); its spare goes back, and its row once nothing is in flight.
   */
  retired?: boolean;
}

/**
 * Per-instance leases on one account's (and key's) funds (docs/leases.md): a slice of the free
 * balance moved into a reservation row this instance holds, out of which its requests reserve in
 * memory without a database round trip or a row lock. The lease row always equals what the
 * instance has not yet settled out of it (requests in flight + `remaining`), so the sweep that
 * releases a dead instance's reservations returns its leases exactly, and settlements (which
 * shrink the row in their batch) can never take more than it holds.
 */
export class FundLeases {
  private readonly leases = new Map<string, Lease>();

  constructor(
    private readonly context: FundLeasesDependencies,
    private readonly options: LeaseOptions,
  ) {}

  /**
   * Takes `amount` out of this instance's lease for the account and key, growing it when it runs
   * low; answers the lease row's id, or undefined when the reservation must go to the database
   * (no lease can be had: the balance is small, or the database refused a grant lately).
   */
  async reserve(accountId: string, keyId: string | null, amount: bigint): Promise<string | undefined> {
    if (this.closed) return undefined;
    const name = `${accountId}\u0000${keyId ?? ''}`;
    let lease = this.leases.get(name);
    const now = this.context.clock.now().getTime();
    if (lease && lease.exactUntil > now) return undefined;
    if (!lease || lease.remaining < amount) {
      lease ??= this.open(name, accountId, keyId);
      await this.grow(lease, amount);
      if (this.closed || this.leases.get(name) !== lease || lease.remaining < amount) return undefined;
    }
    lease.remaining -= amount;
    lease.inFlight += amount;
    lease.usedAt = now;
    if (lease.remaining < lease.lowWater && !lease.growing) void this.grow(lease, amount);
    return lease.id;
  }

  /**
   * What this instance's leases on the account hold and have handed to no request (grants in
   * flight ended first): the part of the account's `reserved` that is this instance's spare,
   * not any request's.
   */
  async unused(accountId: string): Promise<bigint> {
    const mine = [...this.byId.values()].filter((lease) => lease.accountId === accountId);
    await Promise.allSettled(mine.map((lease) => lease.growing));
    return mine.reduce((sum, lease) => sum + (this.byId.has(lease.id) ? lease.remaining : 0n), 0n);
  }

  /** A reservation that ended without a charge: its amount is the lease's again. */
  giveBack(leaseId: string, amount: bigint): void {
    const lease = this.byId.get(leaseId);
    if (!lease) return;
    lease.inFlight -= amount;
    lease.remaining += amount;
    if (lease.retired) void this.endRetired(lease);
  }

  /** A settlement out of the lease committed: the row no longer holds its amount. */
  settled(leaseId: string, amount: bigint): void {
    const lease = this.byId.get(leaseId);
    if (!lease) return;
    lease.inFlight -= amount;
    if (lease.retired) void this.endRetired(lease);
  }

  /**
   * The key's limit changed or the key was revoked (issue 45): its leases were sized under the
   * old limit, so none of them serves another request. Each leaves the map at once (a request
   * that was waiting for its top-up then goes the exact way, checked against the new limit),
   * its spare goes back to the account and key, and its row once its requests in flight have
   * settled. The next request of the key opens a new lease, sized under the new limit, or is
   * refused. Resolves once the spare is given back.
   */
  recallKey(keyId: string): Promise<void> {
    return this.retireWhere((lease) => lease.keyId === keyId);
  }

  /** Every lease recalled as `recallKey` does: a notification of a change may have been missed. */
  recallAll(): Promise<void> {
    return this.retireWhere(() => true);
  }

  private async retireWhere(recalled: (lease: Lease) => boolean): Promise<void> {
    const matching = [...this.byId.values()].filter(recalled);
    for (const lease of matching) {
      if (lease.retired) continue;
      this.drop(lease);
      lease.retired = true;
      lease.ending = this.endRetired(lease);
    }
    // A lease that another recall retired a moment before (this instance's own notification of
    // the same key change, heard before the change's route went on) is waited for too: a caller
    // goes on only once the spare of every matching lease is back, whichever recall started it.
    await Promise.all(matching.map((lease) => lease.ending));
  }

  /**
   * A request of the account did not fit (issue 45): every lease of the account on this
   * instance, whatever its key, gives back what no request holds, and grants no more for
   * `exactForMs`, so that the exact reservation that follows can reach every unit the
   * account's requests in flight do not hold. Resolves once given back.
   */
  async giveBackSpare(accountId: string): Promise<void> {
    const until = this.context.clock.now().getTime() + this.options.exactForMs;
    const spare = [...this.byId.values()].filter((lease) => lease.accountId === accountId && !lease.retired);
    for (const lease of spare) lease.exactUntil = Math.max(lease.exactUntil, until);
    await Promise.all(
      spare.map(async (lease) => {
        await lease.growing;
        await this.returnRemaining(lease);
      }),
    );
  }

  /** A retired lease: its spare back now (a grant in flight ended first), its row once nothing is in flight. */
  private async endRetired(lease: Lease): Promise<void> {
    await lease.growing;
    await this.returnRemaining(lease);
    if (lease.inFlight > 0n || this.byId.get(lease.id) !== lease) return;
    this.byId.delete(lease.id);
    lease.remaining = 0n;
    if (this.opened.delete(lease.id)) await releaseOnce(this.context.store, lease.id).catch(() => this.unsure.add(lease.id));
  }

  private open(name: string, accountId: string, keyId: string | null): Lease {
    const lease: Lease = { id: this.context.createId('lse'), accountId, keyId, remaining: 0n, inFlight: 0n, lowWater: 0n, usedAt: this.context.clock.now().getTime(), exactUntil: 0 };
    this.leases.set(name, lease);
    this.byId.set(lease.id, lease);
    return lease;
  }

  /**
   * Leases by row id, dropped ones included until their row is deleted (their requests in
   * flight still settle out of the row; the shutdown or the sweep deletes it).
   */
  private readonly byId = new Map<string, Lease>();
  /** Lease rows inserted (a grant committed). */
  private readonly opened = new Set<string>();
  /**
   * Lease ids whose opening grant failed without an answer: the row may exist (the commit went
   * through, its answer was lost). The lease is dropped; the row, if any, is released with the
   * upkeep, at shutdown and when fenced.
   */
  private readonly unsure = new Set<string>();
  /** Set by `close()`: no grant is asked for any more, and reservations go the exact way. */
  private closed = false;

  /** One grant at a time per lease; concurrent callers wait for the same one. */
  private grow(lease: Lease, amount: bigint): Promise<void> {
    if (this.closed) return Promise.resolve();
    lease.growing ??= this.askGrant(lease, amount).finally(() => {
      lease.growing = undefined;
    });
    return lease.growing;
  }

  private async askGrant(lease: Lease, amount: bigint): Promise<void> {
    const now = this.context.clock.now();
    const { maxGrantNano, shareDivisor, minRequests } = this.options;
    const minimum = amount * minRequests;
    const existing = this.opened.has(lease.id);
    let failed = false;
    const granted = await this.growRow(
      {
        id: lease.id,
        accountId: lease.accountId,
        keyId: lease.keyId,
        instanceId: this.options.instanceId,
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + this.options.lifetimeMs).toISOString(),
        size: (free) => {
          const share = free / shareDivisor;
          const size = share < maxGrantNano ? share : maxGrantNano;
          return size >= minimum ? size : 0n;
        },
      },
      existing,
    ).catch(() => {
      failed = true;
      return 0n;
    });
    if (failed && !existing) {
      // The row may have been inserted with the answer lost: never reuse the id (a second insert
      // would collide); release it once the database answers.
      this.unsure.add(lease.id);
      this.drop(lease);
      this.byId.delete(lease.id);
      return;
    }
    if (granted === null) {
      // Swept meanwhile: this lease is over; the next reservation opens a new one.
      this.drop(lease);
      this.opened.delete(lease.id);
      return;
    }
    if (granted > 0n && !this.byId.has(lease.id)) {
      // Forgotten (fenced) while the grant was on its way: its row is nobody's, give it back.
      await releaseOnce(this.context.store, lease.id).catch(() => this.unsure.add(lease.id));
      return;
    }
    if (granted > 0n) {
      this.opened.add(lease.id);
      lease.remaining += granted;
      lease.lowWater = granted / 2n;
      return;
    }
    // Funds are scarce (or the database is failing): reserve exactly for a while, and give back
    // what is not in use, so that other instances' exact reservations can use every last unit.
    lease.exactUntil = now.getTime() + this.options.exactForMs;
    await this.returnRemaining(lease);
  }

  private async returnRemaining(lease: Lease): Promise<void> {
    const amount = lease.remaining;
    if (amount <= 0n || !this.opened.has(lease.id)) return;
    lease.remaining = 0n;
    const database = this.context.store.sqlite;
    const shrunk = database ? whenIdle(database).then(() => sqliteLeaseStatements(database).shrink(lease.id, amount)) : shrinkLease(this.context.store.db, lease.id, amount);
    // False: nothing changed, the row holds it still. On PostgreSQL a failure leaves unknown
    // whether the give-back committed (its answer may be lost): the amount stays out of
    // `remaining`, so it is never handed out once the row no longer holds it; whatever the row
    // still holds goes back with the row when the lease ends (idle, recalled, shutdown or sweep).
    // SQLite's synchronous transaction that throws has rolled back: nothing changed.
    const returned = await shrunk.catch(() => (database ? false : undefined));
    if (returned === false) lease.remaining += amount;
  }

  /** A grant: one Kysely transaction on PostgreSQL, one synchronous one on SQLite. */
  private growRow(grant: GrowLease, existing: boolean): Promise<bigint | null> {
    const database = this.context.store.sqlite;
    if (!database) return growLease(this.context.store.db, grant, existing);
    return whenIdle(database).then(() => sqliteLeaseStatements(database).grow(grant, existing));
  }

  private drop(lease: Lease): void {
    const name = `${lease.accountId}\u0000${lease.keyId ?? ''}`;
    if (this.leases.get(name) === lease) this.leases.delete(name);
  }

  /**
   * Ends leases unused for `idleMs` (run with the heartbeat): one with nothing in flight is
   * deleted whole and forgotten, so an instance holds rows and memory only for the accounts it
   * serves now; one with requests in flight gives back its unused part.
   */
  async returnIdle(): Promise<void> {
    await this.releaseUnsure();
    const before = this.context.clock.now().getTime() - this.options.idleMs;
    for (const lease of [...this.byId.values()]) {
      if (lease.usedAt >= before || lease.growing) continue;
      if (lease.inFlight > 0n) {
        await this.returnRemaining(lease);
        continue;
      }
      this.drop(lease);
      this.byId.delete(lease.id);
      lease.remaining = 0n;
      if (this.opened.delete(lease.id)) await releaseOnce(this.context.store, lease.id).catch(() => false);
    }
  }

  private async releaseUnsure(): Promise<void> {
    for (const id of [...this.unsure]) {
      if (await releaseOnce(this.context.store, id).then(() => true, () => false)) this.unsure.delete(id);
    }
  }

  /**
   * This instance was declared dead: others released the lease rows they saw, but a grant that
   * committed after their sweep left a row of this instance that nobody else would release once
   * it registers again. Every lease row it knows of is released (its requests in flight are then
   * charged from the free funds, as after a sweep); later reservations open new leases.
   */
  async forget(): Promise<void> {
    const ids = [...this.opened, ...this.unsure];
    this.leases.clear();
    this.byId.clear();
    this.opened.clear();
    this.unsure.clear();
    for (const id of ids) await releaseOnce(this.context.store, id).catch(() => false);
  }

  /**
   * At shutdown, once every settlement is committed: each lease row back to its account and key.
   * Grants still in flight end first (one committing after the release would leave a row held by
   * an instance that no longer exists until another instance's sweep).
   */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.byId.values()].map((lease) => lease.growing));
    const ids = [...this.opened, ...this.unsure];
    this.leases.clear();
    this.byId.clear();
    this.opened.clear();
    this.unsure.clear();
    for (const id of ids) await releaseOnce(this.context.store, id).catch(() => false);
  }

  /**
   * Moves what a request holds out of its lease into a reservation row of the request's own
   * (`reservationId`), retrying while the database does not answer: the move is idempotent, so
   * its settlement can then end that row like any per-request reservation, exactly once however
   * often its batch is written. Used for settlements without a request log row, whose lease
   * settlement (a change of the lease row by an amount) could not tell a retried batch from a
   * new one. Answers false when the lease row was gone (swept) and nothing moved.
   */
  async carve(leaseId: string, reservationId: string, requestId: string, amount: bigint): Promise<boolean> {
    const { pool, sqlite } = this.context.store;
    for (let attempt = 0; ; attempt += 1) {
      try {
        const carve = { leaseId, id: reservationId, requestId, amount, createdAt: this.context.clock.now().toISOString() };
        const moved = sqlite ? await whenIdle(sqlite).then(() => sqliteLeaseStatements(sqlite).carve(carve)) : await carveFromLease(pool!, carve);
        // The lease row no longer holds it either way: the request's own row does, or nothing.
        this.settled(leaseId, amount);
        return moved;
      } catch (error) {
        if (!isDatabaseUnavailable(error) || attempt >= 60) {
          // Given up: whatever the row may still hold for it goes back with the lease.
          this.settled(leaseId, amount);
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 5_000)));
      }
    }
  }
}

/**
 * SQLite: resolves once no Kysely transaction holds the one connection across awaits (the task
 * engine's); a statement run before would join it.
 */
async function whenIdle(database: SqliteDatabase.Database): Promise<void> {
  while (database.inTransaction) await new Promise((resolve) => setImmediate(resolve));
}
