import { sql, type Kysely } from 'kysely';
import { yieldToEventLoop } from '../run-in-batches.js';
import { isPostgres } from './is-postgres.js';
import type { OnlineIndex } from './online-index.js';

/**
 * The operator's account search served by an index (issue 54) instead of a scan of every name.
 *
 * SQLite: `accounts_search`, an FTS5 table with the trigram tokenizer keyed by the accounts'
 * rowid, contentless (it keeps no copy of the names), kept in step by triggers on insert, delete
 * and a change of name (an update of the balances does not fire them, so the money path pays
 * nothing); `accounts_name_idx` on (lower(name), id) for the whole-name match of queries shorter
 * than a trigram; and `accounts_id_name_idx` on (id, lower(name)) for the windowed scan of
 * queries too common for the trigram index. Neither index has a column the money path updates. The backfill runs in batches of rowids with a yield between them.
 *
 * PostgreSQL: nothing inside the migrator's transaction. The pg_trgm extension and both indexes
 * are `onlineIndexes` below, built by `buildOnlineIndexes` after the migrator commits, with
 * CREATE INDEX CONCURRENTLY outside any transaction, so instances still serving keep writing
 * accounts while a large table is indexed (docs/deployment.md, "Migrations on large tables").
 * The expressions must stay the text `search-accounts.ts` queries, or the planner ignores them.
 */
const asciiLower = "translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')";

export const onlineIndexes: OnlineIndex[] = [
  { name: 'accounts_name_idx', table: 'accounts', definition: `(${asciiLower}, id)` },
  { name: 'accounts_name_trgm_idx', table: 'accounts', definition: `using gin (${asciiLower} {trgm}.gin_trgm_ops)`, extension: 'pg_trgm' },
];

const backfillBatch = 5_000;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (await isPostgres(db)) return;
  // SQLite runs each statement of a migration on its own (no transactional DDL in Kysely's
  // SQLite adapter): start clean, so that a run cut short is simply run again.
  await dropSqliteSearch(db);
  await sql`create virtual table accounts_search using fts5(name, tokenize = 'trigram', content = '', contentless_delete = 1)`.execute(db);
  await db.schema.createIndex('accounts_name_idx').on('accounts').expression(sql`lower(name), id`).execute();
  // A query too common for the trigram index pages through the accounts by id in windows; with
  // the folded name in the index, a window reads this index alone, a quarter of the table's time.
  await db.schema.createIndex('accounts_id_name_idx').on('accounts').expression(sql`id, lower(name)`).execute();
  // Triggers and the backfill's upper bound in one transaction: a row added after it is indexed by
  // the trigger, every row up to it by the backfill, none twice.
  const last = await db.transaction().execute(async (trx) => {
    await sql`create trigger accounts_search_insert after insert on accounts begin
      insert into accounts_search (rowid, name) values (new.rowid, new.name); end`.execute(trx);
    await sql`create trigger accounts_search_delete after delete on accounts begin
      delete from accounts_search where rowid = old.rowid; end`.execute(trx);
    await sql`create trigger accounts_search_rename after update of name on accounts begin
      delete from accounts_search where rowid = old.rowid;
      insert into accounts_search (rowid, name) values (new.rowid, new.name); end`.execute(trx);
    const row = await sql<{ last: number | bigint | null }>`select max(rowid) as last from accounts`.execute(trx);
    return Number(row.rows[0]?.last ?? 0);
  });
  for (let from = 0; from < last; from += backfillBatch) {
    await sql`insert into accounts_search (rowid, name) select rowid, name from accounts where rowid > ${from} and rowid <= ${Math.min(from + backfillBatch, last)}`.execute(db);
    await yieldToEventLoop();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (await isPostgres(db)) {
    for (const index of onlineIndexes) await db.schema.dropIndex(index.name).ifExists().execute();
    return;
  }
  await dropSqliteSearch(db);
}

async function dropSqliteSearch(db: Kysely<unknown>): Promise<void> {
  for (const trigger of ['accounts_search_insert', 'accounts_search_delete', 'accounts_search_rename']) await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
  await sql`drop table if exists accounts_search`.execute(db);
  await db.schema.dropIndex('accounts_name_idx').ifExists().execute();
  await db.schema.dropIndex('accounts_id_name_idx').ifExists().execute();
}
