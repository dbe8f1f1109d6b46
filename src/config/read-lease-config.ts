import { tryUsdToNano } from '../core/money.js';
import type { LedgerOptions } from '../billing/ledger.js';

/**
 * `SWITCHYARD_LEASES` (`on` | `off`, default on; `off`: every reservation is one database call)
 * and `SWITCHYARD_LEASE_MAX_USD` (the most one lease grant may hold, default 1): per-instance
 * leases on an account's funds (docs/leases.md). Only PostgreSQL uses them: SQLite is one
 * process, whose reservations are already group-committed in memory order, with no row shared
 * between instances to contend on.
 */
export function readLeaseConfig(dialect: 'sqlite' | 'postgres', env: NodeJS.ProcessEnv = process.env): LedgerOptions['leases'] {
  const setting = (env.SWITCHYARD_LEASES?.trim() || 'on').toLowerCase();
  if (!['on', 'off', 'true', 'false', '1', '0'].includes(setting)) throw new Error(`SWITCHYARD_LEASES must be on or off, got "${env.SWITCHYARD_LEASES}"`);
  if (dialect !== 'postgres' || ['off', 'false', '0'].includes(setting)) return undefined;
  const maxUsd = env.SWITCHYARD_LEASE_MAX_USD?.trim() || '1';
  const maxGrantNano = tryUsdToNano(maxUsd);
  if (maxGrantNano === undefined || maxGrantNano <= 0n) throw new Error(`SWITCHYARD_LEASE_MAX_USD must be a positive amount of USD, got "${maxUsd}"`);
  return { maxGrantNano, shareDivisor: 8n, minRequests: 16n, exactForMs: 2_000, idleMs: 30_000 };
}
