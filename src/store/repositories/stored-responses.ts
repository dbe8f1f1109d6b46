import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';

export interface StoredResponseRecord {
  id: string;
  accountId: string;
  apiKeyId: string;
  model: string;
  /** JSON text: the input items the model read (earlier turns included). */
  inputItems: string;
  /** JSON text: the Response object as answered. */
  response: string;
  createdAt: string;
  expiresAt: string;
  /** Kept for nothing (a WebSocket warm-up): counts against the account's free storage. */
  free?: boolean;
}

/** Who may see a stored response: the account, and for an ordinary key only its own. */
export interface StoredResponseScope {
  accountId: string;
  /** Undefined for a management key (the whole account). */
  apiKeyId?: string;
}

/** Inserts a batch of stored responses in one statement. */
export async function insertStoredResponses(db: Kysely<Database>, records: readonly StoredResponseRecord[]): Promise<void> {
  if (records.length === 0) return;
  await db
    .insertInto('stored_responses')
    .values(
      records.map((record) => ({
        id: record.id,
        account_id: record.accountId,
        api_key_id: record.apiKeyId,
        model: record.model,
        input_items: record.inputItems,
        response: record.response,
        size: Buffer.byteLength(record.inputItems) + Buffer.byteLength(record.response),
        free: record.free ? 1 : 0,
        created_at: record.createdAt,
        expires_at: record.expiresAt,
      })),
    )
    .execute();
}

/** How many unexpired free stored responses the account holds, and their bytes. */
export async function measureFreeStoredResponses(db: Kysely<Database>, accountId: string, now: string): Promise<{ count: number; bytes: number }> {
  const row = await db
    .selectFrom('stored_responses')
    .select((eb) => [eb.fn.countAll<number | bigint | string>().as('count'), eb.fn.coalesce(eb.fn.sum<number | bigint | string>('size'), eb.lit(0)).as('bytes')])
    .where('account_id', '=', accountId)
    // A literal, not a parameter: SQLite uses the partial index only when the query states its condition.
    .where('free', '=', sql.lit(1))
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), bytes: Number(row.bytes) };
}

/** The stored response, unless it expired or lies outside the scope. */
export async function findStoredResponse(db: Kysely<Database>, scope: StoredResponseScope, id: string, now: string): Promise<StoredResponseRecord | undefined> {
  let query = db.selectFrom('stored_responses').selectAll().where('id', '=', id).where('account_id', '=', scope.accountId).where('expires_at', '>', now);
  if (scope.apiKeyId !== undefined) query = query.where('api_key_id', '=', scope.apiKeyId);
  const row = await query.executeTakeFirst();
  return (
    row && {
      id: row.id,
      accountId: row.account_id,
      apiKeyId: row.api_key_id,
      model: row.model,
      inputItems: row.input_items,
      response: row.response,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    }
  );
}

/** Deletes the stored response within the scope (expired ones count as gone); true when one was deleted. */
export async function deleteStoredResponse(db: Kysely<Database>, scope: StoredResponseScope, id: string, now: string): Promise<boolean> {
  let query = db.deleteFrom('stored_responses').where('id', '=', id).where('account_id', '=', scope.accountId).where('expires_at', '>', now);
  if (scope.apiKeyId !== undefined) query = query.where('api_key_id', '=', scope.apiKeyId);
  const result = await query.executeTakeFirst();
  return BigInt(result.numDeletedRows) > 0n;
}

/** Deletes stored responses past their expiry, at most `limit` of them; returns how many. */
export async function deleteExpiredStoredResponses(db: Kysely<Database>, now: string, limit: number): Promise<number> {
  const ids = await db.selectFrom('stored_responses').select('id').where('expires_at', '<=', now).limit(limit).execute();
  if (ids.length === 0) return 0;
  const result = await db
    .deleteFrom('stored_responses')
    .where(
      'id',
      'in',
      ids.map((row) => row.id),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
