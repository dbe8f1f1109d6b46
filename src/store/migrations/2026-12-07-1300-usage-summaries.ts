import { sql, type Kysely } from 'kysely';
import { isPostgres } from './is-postgres.js';

/**
 * `usage_summaries` (`billing/db/summarize-usage.ts`): what the usage report reads instead of summing
 * every detailed rollup of its range. On SQLite the table is clustered on its key (`without
 * rowid`): a report's ranges are read from the key's B-tree without a lookup per row.
 *
 * The rollups already there are summed in the background after start, not here: a backfill of
 * millions of rows inside the migration held the migrator's lock (every other instance's start,
 * on a shared database every other schema's migrations) for minutes. So the migration only sets
 * the rollups aside, which takes no time whatever their number: the table is renamed
 * `usage_rollups_pending` (its rows are exactly the usage the summaries do not hold yet) and an
 * empty `usage_rollups` takes its place, which the writers fill together with the summaries from
 * now on. A background job (`billing/backfill-usage-summaries.ts`) moves the pending rows into
 * both, a small page per transaction, and the reports add up what is still pending meanwhile, so
 * they are exact at every moment (docs/usage-reports.md, "Upgrading: the backfill").
 *
 * The pending table is the progress marker: pending work is its rows. A database that ran the
 * first version of this migration (which summed the rollups in place) has none, and nothing to
 * do; a new database has an empty one, done at the first look.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = await isPostgres(db);
  await db.schema
    .createTable('usage_summaries')
    .ifNotExists()
    .addColumn('account_id', 'text', (column) => column.notNull())
    .addColumn('dimension', 'text', (column) => column.notNull())
    .addColumn('period', 'text', (column) => column.notNull())
    .addColumn('value', 'text', (column) => column.notNull())
    .addColumn('requests', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('prompt_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('completion_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('cost', 'bigint', (column) => column.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_summaries_pk', ['account_id', 'dimension', 'period', 'value'])
    .$call((builder) => (postgres ? builder : builder.modifyEnd(sql`without rowid`)))
    .execute();
  // Kysely runs a SQLite migration's statements one by one (no transactional DDL there): each
  // step below is skipped when done, so that a run cut short is simply run again.
  const pendingExists = postgres
    ? (await sql<{ found: boolean }>`select to_regclass('usage_rollups_pending') is not null as found`.execute(db)).rows[0].found
    : (await sql`select 1 from sqlite_master where type = 'table' and name = 'usage_rollups_pending'`.execute(db)).rows.length > 0;
  if (!pendingExists) {
    // Index names are unique per schema (SQLite: per database), and the new table takes the old
    // ones. The pending table keeps its primary key, which the backfill pages and the reports
    // read by (renamed on PostgreSQL; SQLite renames its automatic index with the table), and on
    // PostgreSQL its key index too, renamed, for an ordinary key's report during the backfill.
    // SQLite cannot rename an index: there it is dropped, and such a report reads the key's
    // pending rows by the account's range of days until the backfill is done.
    if (postgres) await sql`alter index if exists usage_rollups_account_key_idx rename to usage_rollups_pending_account_key_idx`.execute(db);
    else await db.schema.dropIndex('usage_rollups_account_key_idx').ifExists().execute();
    await db.schema.alterTable('usage_rollups').renameTo('usage_rollups_pending').execute();
    if (postgres) await sql`alter table usage_rollups_pending rename constraint usage_rollups_pk to usage_rollups_pending_pk`.execute(db);
  }
  await db.schema
    .createTable('usage_rollups')
    .ifNotExists()
    .addColumn('account_id', 'text', (column) => column.notNull())
    .addColumn('day', 'text', (column) => column.notNull())
    .addColumn('key_id', 'text', (column) => column.notNull())
    .addColumn('model', 'text', (column) => column.notNull())
    .addColumn('provider', 'text', (column) => column.notNull())
    .addColumn('requests', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('prompt_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('completion_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('cost', 'bigint', (column) => column.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_rollups_pk', ['account_id', 'day', 'key_id', 'model', 'provider'])
    .execute();
  await db.schema.createIndex('usage_rollups_account_key_idx').ifNotExists().on('usage_rollups').columns(['account_id', 'key_id', 'day']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = await isPostgres(db);
  const pendingExists = postgres
    ? (await sql<{ found: boolean }>`select to_regclass('usage_rollups_pending') is not null as found`.execute(db)).rows[0].found
    : (await sql`select 1 from sqlite_master where type = 'table' and name = 'usage_rollups_pending'`.execute(db)).rows.length > 0;
  if (pendingExists) {
    // The previous version reads the rollups alone: give them back what is still pending.
    await sql`insert into usage_rollups (account_id, day, key_id, model, provider, requests, prompt_tokens, completion_tokens, cost)
      select account_id, day, key_id, model, provider, requests, prompt_tokens, completion_tokens, cost from usage_rollups_pending where true
      on conflict (account_id, day, key_id, model, provider) do update set requests = usage_rollups.requests + excluded.requests,
        prompt_tokens = usage_rollups.prompt_tokens + excluded.prompt_tokens, completion_tokens = usage_rollups.completion_tokens + excluded.completion_tokens,
        cost = usage_rollups.cost + excluded.cost`.execute(db);
    await db.schema.dropTable('usage_rollups_pending').execute();
  }
  await db.schema.dropTable('usage_summaries').ifExists().execute();
}
