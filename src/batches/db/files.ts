import type { Kysely, Selectable } from 'kysely';
import type { Database, FilesTable } from '../../store/database.js';
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
  return row && toFile(row);
}

/**
 * One page of the account's files, as OpenAI lists them: by id (ids are time-ordered), newest
 * first unless `order` is `asc`, after the cursor `after` (the last id of the previous page),
 * of one `purpose` when given; the index `(account_id, id)` serves it.
 */
export async function listFiles(db: Kysely<Database>, accountId: string, options: { limit: number; after?: string; order: 'asc' | 'desc'; purpose?: string }): Promise<FileRecord[]> {
  let query = db.selectFrom('files').selectAll().where('account_id', '=', accountId);
  if (options.purpose !== undefined) query = query.where('purpose', '=', options.purpose);
  if (options.after !== undefined) query = query.where('id', options.order === 'asc' ? '>' : '<', options.after);
  const rows = await query.orderBy('id', options.order).limit(options.limit).execute();
  return rows.map(toFile);
}

function toFile(row: Selectable<FilesTable>): FileRecord {
  return {
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
