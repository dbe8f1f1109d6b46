import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { isDatabaseUnreachable } from '../store/database-errors.js';
import type { Logger } from 'pino';

/**
 * PostgreSQL's channel for what instances tell each other about leases (docs/leases.md). The
 * database itself notifies on it when a key's limits change or the key is revoked (migration
 * 2026-12-07-1330), in the transaction of the change, so no path that changes a key (an API
 * route on any instance, the admin CLI) can skip it.
 */
export const leaseChannel = 'switchyard_leases';

export interface LeaseSignalHandlers {
  /** A key's limits changed or the key was revoked. */
  keyChanged(keyId: string): Promise<void>;
  /** Another instance's request of the account did not fit: this instance gives back its spare. */
  giveBackSpare(accountId: string): Promise<void>;
  /** Notifications may have been missed (the listening connection was opened again): recall every lease. */
  recallAll(): Promise<void>;
}

export interface LeaseSignalOptions {
  instanceId: string;
  /**
   * Leases serve only while a probe this instance sent less than this long ago has come back on
   * its listening connection: then every notification committed before that probe has been
   * handled, so a key change reaches this instance's leases within this bound, whatever
   * happens to the connection (docs/leases.md, "Limit changes").
   */
  boundMs: number;
  /** How long a request that did not fit waits for the other instances holding leases of its account. */
  reclaimWaitMs: number;
  logger: Logger;
  /** A monotonic clock in milliseconds (the bound is a duration on this instance alone). */
  now?: () => number;
}

interface PendingProbe {
  sentAt: number;
  resolve(back: boolean): void;
}

interface PendingReclaim {
  answered: Set<string>;
  /** Set once the holders are known; called on every answer. */
  check?: () => void;
}

/**
 * One listening connection per instance (PostgreSQL `LISTEN`), apart from the pool: key changes
 * recall this instance's leases of the key, a request elsewhere that did not fit gets this
 * instance's spare of its account, and probes sent to itself every `boundMs / 5` tell how fresh
 * what it heard is. PostgreSQL delivers the notifications of a channel to a listener in commit
 * order, so a probe coming back means every change committed before it was handled first.
 */
export class LeaseSignals {
  /** The connection being opened or listening. */
  private current: pg.Client | undefined;
  /** The connection once it listens. */
  private client: pg.Client | undefined;
  private handlers: LeaseSignalHandlers | undefined;
  private confirmedAt = Number.NEGATIVE_INFINITY;
  private readonly probes = new Map<number, PendingProbe>();
  private probeCount = 0;
  private readonly reclaims = new Map<string, PendingReclaim>();
  private timer: NodeJS.Timeout | undefined;
  private reconnecting: NodeJS.Timeout | undefined;
  private closed = false;
  /** Set while the connection is lost, so that an outage is logged once. */
  private down = false;
  private readonly now: () => number;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: LeaseSignalOptions,
  ) {
    this.now = options.now ?? (() => performance.now());
  }

  /** Whether leases may serve: a probe sent less than `boundMs` ago came back. No I/O. */
  confirmed(): boolean {
    return this.now() - this.confirmedAt < this.options.boundMs;
  }

  /** Listens, and waits (at most `boundMs`) for the first probe to come back. */
  async start(handlers: LeaseSignalHandlers): Promise<void> {
    this.handlers = handlers;
    this.timer = setInterval(() => void this.probe(), Math.max(20, Math.floor(this.options.boundMs / 5)));
    this.timer.unref();
    await this.connect();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), this.options.boundMs)));
    await Promise.race([this.probe(), late]).finally(() => clearTimeout(timer));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.reconnecting);
    const client = this.current;
    this.current = undefined;
    this.client = undefined;
    this.forgetProbes();
    for (const pending of this.reclaims.values()) pending.check?.();
    await client?.end().catch(() => undefined);
  }

  /**
   * A request of `accountId` did not fit: asks every other instance holding a lease of the
   * account (a row that holds anything) for its spare, and resolves once each has answered that it gave it back, or after
   * `reclaimWaitMs` (an instance that died answers nothing; the sweep returns its leases).
   */
  async reclaim(accountId: string): Promise<void> {
    const client = this.client;
    if (!client) return;
    const token = randomUUID();
    const pending: PendingReclaim = { answered: new Set() };
    this.reclaims.set(token, pending);
    let timer: NodeJS.Timeout | undefined;
    try {
      const result = await client.query<{ holders: string[] }>({
        text: `with holders as (
                 select distinct instance_id from reservations
                 where account_id = $1 and id = request_id and amount > 0 and instance_id is not null and instance_id <> $2)
               select array(select instance_id from holders) as holders,
                      (select pg_notify($3, $4) where exists (select 1 from holders)) as sent`,
        values: [accountId, this.options.instanceId, leaseChannel, `reclaim ${this.options.instanceId} ${token} ${accountId}`],
      });
      const holders = result.rows[0].holders;
      if (holders.length === 0) return;
      await new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.options.reclaimWaitMs);
        pending.check = () => {
          if (this.closed || holders.every((holder) => pending.answered.has(holder))) resolve();
        };
        pending.check();
      });
    } catch (error) {
      this.lost(client, error);
    } finally {
      clearTimeout(timer);
      this.reclaims.delete(token);
    }
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    // Named, so that an operator can tell it in pg_stat_activity (it stays idle in LISTEN).
    const client = new pg.Client({ ...this.pool.options, application_name: `switchyard-lease-signals ${this.options.instanceId}` });
    this.current = client;
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => {
      if (message.channel === leaseChannel && message.payload !== undefined) this.receive(message.payload);
    });
    try {
      await client.connect();
      await client.query(`listen ${leaseChannel}`);
    } catch (error) {
      this.lost(client, error);
      return;
    }
    if (this.current !== client) return;
    this.client = client;
    if (this.down) this.options.logger.info('lease signals listening again; every lease was recalled');
    this.down = false;
    // What was committed while no connection listened was never heard: no lease sized before
    // serves again (the part that takes them out of service runs before this call returns).
    void this.handlers?.recallAll().catch((error: unknown) => this.options.logger.warn({ err: error }, 'recalling leases failed'));
  }

  private lost(client: pg.Client, error?: unknown): void {
    client.removeAllListeners('notification');
    void client.end().catch(() => undefined);
    if (this.current !== client) return;
    this.current = undefined;
    this.client = undefined;
    this.forgetProbes();
    if (this.closed) return;
    if (!this.down) {
      // A database that stopped answering is told once, by the store's outage episode (the
      // heartbeat and every request find it); this connection's loss is part of that episode.
      const level = error === undefined || isDatabaseUnreachable(error) ? 'info' : 'warn';
      this.options.logger[level]({ err: error }, 'lease signals connection lost; leases serve again once it listens and a probe comes back');
    }
    this.down = true;
    this.reconnecting = setTimeout(() => {
      this.reconnecting = undefined;
      void this.connect();
    }, 500);
    this.reconnecting.unref();
  }

  private forgetProbes(): void {
    for (const probe of this.probes.values()) probe.resolve(false);
    this.probes.clear();
  }

  /** Sends a probe to itself; resolves true once it came back, false if the connection was lost. */
  private async probe(): Promise<boolean> {
    const client = this.client;
    if (!client) return false;
    const number = (this.probeCount += 1);
    const back = new Promise<boolean>((resolve) => this.probes.set(number, { sentAt: this.now(), resolve }));
    try {
      await client.query('select pg_notify($1, $2)', [leaseChannel, `probe ${this.options.instanceId} ${number}`]);
    } catch (error) {
      this.lost(client, error);
    }
    return back;
  }

  private receive(payload: string): void {
    const [kind, first, second, third] = payload.split(' ');
    if (kind === 'probe' && first === this.options.instanceId) this.probeBack(Number(second));
    else if (kind === 'key' && first) this.run(this.handlers?.keyChanged(first));
    else if (kind === 'reclaim' && first !== this.options.instanceId && second && third) this.run(this.answerReclaim(second, third));
    else if (kind === 'reclaimed' && first) {
      const pending = this.reclaims.get(first);
      if (pending && second) {
        pending.answered.add(second);
        pending.check?.();
      }
    }
  }

  /** Probes come back in the order sent: an earlier one still waiting was lost with a connection. */
  private probeBack(number: number): void {
    const probe = this.probes.get(number);
    if (!probe) return;
    for (const [earlier, waiting] of this.probes) {
      if (earlier > number) break;
      this.probes.delete(earlier);
      waiting.resolve(earlier === number);
    }
    this.confirmedAt = Math.max(this.confirmedAt, probe.sentAt);
  }

  private async answerReclaim(token: string, accountId: string): Promise<void> {
    await this.handlers?.giveBackSpare(accountId);
    await this.client?.query('select pg_notify($1, $2)', [leaseChannel, `reclaimed ${token} ${this.options.instanceId}`]);
  }

  private run(work: Promise<void> | undefined): void {
    work?.catch((error: unknown) => this.options.logger.warn({ err: error }, 'lease signal not handled'));
  }
}
