import { tryUsdToNano } from '../core/money.js';
import type { LedgerOptions } from '../billing/ledger.js';

/**
 * `SWITCHYARD_LEASES` (`on` | `off`, default on; `off`: every reservation is one database call)
 * and `SWITCHYARD_LEASE_MAX_USD` (the most one lease grant may hold, default 1): per-instance
 * leases on an account's funds (docs/leases.md), on both databases. On PostgreSQL they take the
 * hot account's row lock off the request path; on SQLite they take the reservation transaction
 * (a commit per event-loop turn) and the reservation row written and deleted per request.
 * `SWITCHYARD_LEASE_RECALL_MS` (default 5000, PostgreSQL): the longest a key's lowered limit or
 * revocation may take to reach another instance's leases (docs/leases.md, "Limit changes").
 */
export function readLeaseConfig(env: NodeJS.ProcessEnv = process.env): LedgerOptions['leases'] {
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
