import { sql } from 'kysely';
import type { Store } from '../../src/store/create-store.js';
import { insertRequests } from '../../src/billing/db/requests.js';
import type { RequestRecord } from '../../src/billing/request-record.js';

/**
 * Seeding only: the fastest way each database takes a large chunk of request rows. SQLite takes
 * the repository's multi-row inserts inside one transaction per chunk; PostgreSQL takes one
 * `INSERT … SELECT FROM unnest(<one array per column>)` per chunk, a single statement of any size.
 */
export async function bulkInsertRequests(store: Store, rows: readonly RequestRecord[]): Promise<void> {
  if (store.dialect === 'sqlite') {
    await store.db.transaction().execute((trx) => insertRequests(trx, rows));
    return;
  }
  const column = <T>(read: (row: RequestRecord) => T) => rows.map(read);
  await sql`
    insert into requests (id, account_id, key_id, model, provider, endpoint, streamed, status, error_code, latency_ms,
                          prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, cost, estimated, created_at)
    select * from unnest(
      ${column((row) => row.id)}::text[], ${column((row) => row.accountId)}::text[], ${column((row) => row.keyId)}::text[],
      ${column((row) => row.model)}::text[], ${column((row) => row.provider)}::text[], ${column((row) => row.endpoint)}::text[],
      ${column((row) => (row.streamed ? 1 : 0))}::int[], ${column((row) => row.status)}::text[], ${column((row) => row.errorCode)}::text[],
      ${column((row) => row.latencyMs)}::int[], ${column((row) => row.promptTokens)}::int[], ${column((row) => row.completionTokens)}::int[],
      ${column((row) => row.cachedTokens)}::int[], ${column((row) => row.reasoningTokens)}::int[], ${column((row) => row.cost.toString())}::bigint[],
      ${column((row) => (row.estimated ? 1 : 0))}::int[], ${column((row) => row.createdAt)}::text[])`.execute(store.db);
}
