import type { Kysely } from 'kysely';
import { toNumber } from '../convert.js';
import type { Database } from '../database.js';

export interface MediaFileRecord {
  id: string;
  accountId: string;
  requestId: string;
  contentType: string;
  data: Buffer;
  createdAt: string;
  expiresAt: string;
}

/** Stores files; an id already present is left as it is (a retried task poll stores the same ids). */
export async function insertMediaFiles(db: Kysely<Database>, files: readonly MediaFileRecord[]): Promise<void> {
  if (files.length === 0) return;
  await db
    .insertInto('media_files')
    .values(
      files.map((file) => ({
        id: file.id,
        account_id: file.accountId,
        request_id: file.requestId,
        content_type: file.contentType,
        size: file.data.length,
        data: file.data,
        created_at: file.createdAt,
        expires_at: file.expiresAt,
      })),
    )
    .onConflict((conflict) => conflict.column('id').doNothing())
    .execute();
}

/** The account's file, unless it has expired. */
export async function findMediaFile(db: Kysely<Database>, accountId: string, id: string, now: string): Promise<MediaFileRecord | undefined> {
  const row = await db
    .selectFrom('media_files')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return (
    row && {
      id: row.id,
      accountId: row.account_id,
      requestId: row.request_id,
      contentType: row.content_type,
      data: Buffer.from(row.data),
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    }
  );
}

/** Deletes files past their expiry, at most `limit` of them; returns how many. */
export async function deleteExpiredMediaFiles(db: Kysely<Database>, now: string, limit: number): Promise<number> {
  const ids = await db.selectFrom('media_files').select('id').where('expires_at', '<=', now).limit(limit).execute();
  if (ids.length === 0) return 0;
  const result = await db
    .deleteFrom('media_files')
    .where(
      'id',
      'in',
      ids.map((row) => row.id),
    )
    .executeTakeFirst();
  return toNumber(result.numDeletedRows);
}
