import { tryUsdToNano } from '../core/money.js';

/** Per-instance leases on an account's funds (docs/leases.md), as the environment sets them. */
export interface LeaseSettings {
  /** The most one lease may grow by at a time (nano-USD). */
  maxGrantNano: bigint;
  /** A grant takes at most this fraction (1/n) of what the account and key have free. */
  shareDivisor: bigint;
  /** A grant must cover at least this many reservations of the size asked for; smaller balances are reserved exactly. */
  minRequests: bigint;
  /** After a refused grant, reservations of that account and key go to the database this long. */
  exactForMs: number;
  /** A lease unused this long is given back. */
  idleMs: number;
  /** Several instances (PostgreSQL): the longest a key change may take to reach another instance's leases (`LeaseSignals`, default 5 s). */
  recallBoundMs?: number;
  /** Several instances: how long a request that did not fit waits for the others' spare (default 1 s). */
  reclaimWaitMs?: number;
}

/**
 * `SWITCHYARD_LEASES` (`on` | `off`, default on; `off`: every reservation is one database call)
 * and `SWITCHYARD_LEASE_MAX_USD` (the most one lease grant may hold, default 1): per-instance
 * leases on an account's funds (docs/leases.md), on both databases. On PostgreSQL they take the
 * hot account's row lock off the request path; on SQLite they take the reservation transaction
 * (a commit per event-loop turn) and the reservation row written and deleted per request.
 * `SWITCHYARD_LEASE_RECALL_MS` (default 5000, PostgreSQL): the longest a key's lowered limit or
 * revocation may take to reach another instance's leases (docs/leases.md, "Limit changes").
 */
export function readLeaseConfig(env: NodeJS.ProcessEnv = process.env): LeaseSettings | undefined {
  const setting = (env.SWITCHYARD_LEASES?.trim() || 'on').toLowerCase();
  if (!['on', 'off', 'true', 'false', '1', '0'].includes(setting)) throw new Error(`SWITCHYARD_LEASES must be on or off, got "${env.SWITCHYARD_LEASES}"`);
  if (['off', 'false', '0'].includes(setting)) return undefined;
  const maxUsd = env.SWITCHYARD_LEASE_MAX_USD?.trim() || '1';
  const maxGrantNano = tryUsdToNano(maxUsd);
  if (maxGrantNano === undefined || maxGrantNano <= 0n) throw new Error(`SWITCHYARD_LEASE_MAX_USD must be a positive amount of USD, got "${maxUsd}"`);
  const recallBoundMs = Number(env.SWITCHYARD_LEASE_RECALL_MS?.trim() || '5000');
  if (!Number.isInteger(recallBoundMs) || recallBoundMs < 100) throw new Error(`SWITCHYARD_LEASE_RECALL_MS must be a whole number of milliseconds, at least 100, got "${env.SWITCHYARD_LEASE_RECALL_MS}"`);
  return { maxGrantNano, shareDivisor: 8n, minRequests: 16n, exactForMs: 2_000, idleMs: 30_000, recallBoundMs, reclaimWaitMs: 1_000 };
}
