// The books of one account that spends out of one instance lease, for the benchmark's tools that
// drive the gateway's own books writer without the rest of the gateway (`measure-books-sqlite.ts`,
// `lower-bound-proxy.ts`): the account, a lease row that holds far more than a run charges (as an
// instance's lease does between top-ups), and request rows shaped like the benchmark's requests.
import type { RequestRecord } from '../../src/billing/request-record.js';
import type { SettlementEntry } from '../../src/billing/plan-books.js';
import { createId } from '../../src/core/ids.js';
import type { Store } from '../../src/store/create-store.js';
import { insertAccount } from '../../src/store/repositories/accounts.js';

export interface LeaseBooks {
  accountId: string;
  leaseId: string;
  /** A completed, non-streamed Chat Completions request's row with these counts and this cost. */
  record(id: string, usage?: { promptTokens: number; completionTokens: number; streamed?: boolean }): RequestRecord;
  /** The settlement of request `requestId` out of the lease. */
  settlement(requestId: string, cost: bigint): SettlementEntry;
}

/** Seeds the account and its lease in a migrated SQLite store. */
export async function seedLeaseBooks(store: Store, cost: bigint): Promise<LeaseBooks> {
  const database = store.sqlite;
  if (!database) throw new Error('seedLeaseBooks needs a SQLite store');
  const accountId = createId('acc');
  const now = new Date().toISOString();
  await insertAccount(store.db, { id: accountId, name: 'bench', createdAt: now });
  const leaseId = createId('lse');
  const held = 10n ** 15n;
  database.prepare('update accounts set total_credits = ?, reserved = ? where id = ?').run(10n * held, held, accountId);
  database
    .prepare('insert into reservations (id, account_id, key_id, request_id, amount, created_at, expires_at, instance_id) values (?, ?, ?, ?, ?, ?, ?, ?)')
    .run(leaseId, accountId, null, leaseId, held, now, '2999-01-01T00:00:00.000Z', 'ins_bench');
  return {
    accountId,
    leaseId,
    record: (id, usage) => ({
      id, accountId, keyId: null, model: 'bench/gpt-sim', provider: 'bench-sim', endpoint: '/chat/completions', streamed: usage?.streamed ?? false,
      status: 'completed', errorCode: null, latencyMs: 12, promptTokens: usage?.promptTokens ?? 12, completionTokens: usage?.completionTokens ?? 16,
      cachedTokens: 0, reasoningTokens: 0, cost, estimated: false, createdAt: new Date().toISOString(), endUser: null, omitted: null,
      webSearchRequests: null, toolCost: null,
    }),
    settlement: (requestId, charge) => ({ reservationId: leaseId, leaseHeld: charge, accountId, keyId: null, requestId, cost: charge }),
  };
}
