import type { Kysely } from 'kysely';
import type { Database } from '../../store/database.js';
import { toNumber } from '../../store/convert.js';

/** An uploaded file as the API shows it, and where its bytes are. */
export interface FileRecord {
  id: string;
  accountId: string;
  purpose: string;
  filename: string;
  bytes: number;
  lineCount: number;
  storageKey: string;
  createdAt: string;
}

export async function insertFile(db: Kysely<Database>, file: FileRecord): Promise<void> {
  await db
    .insertInto('files')
    .values({
      id: file.id,
      account_id: file.accountId,
      purpose: file.purpose,
      filename: file.filename,
      bytes: file.bytes,
      line_count: file.lineCount,
      storage_key: file.storageKey,
      created_at: file.createdAt,
    })
    .execute();
}

/** The account's file; another account's id finds nothing (contract §2: indistinguishable from missing). */
export async function findFile(db: Kysely<Database>, accountId: string, id: string): Promise<FileRecord | undefined> {
  const row = await db.selectFrom('files').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return row && {
    id: row.id,
    accountId: row.account_id,
    purpose: row.purpose,
    filename: row.filename,
    bytes: toNumber(row.bytes),
    lineCount: toNumber(row.line_count),
    storageKey: row.storage_key,
    createdAt: row.created_at,
  };
}

/** Deletes the account's file row; answers whether there was one. */
export async function deleteFile(db: Kysely<Database>, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('files').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
