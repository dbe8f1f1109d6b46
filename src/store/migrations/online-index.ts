import type pg from 'pg';

/**
 * A PostgreSQL index that a migration wants built without blocking writers: CREATE INDEX
 * CONCURRENTLY, which may not run inside a transaction, while Kysely's migrator runs every
 * pending migration in one. So such indexes are listed here and built by `buildOnlineIndexes`
 * after the migrator has committed (on tables of more than `smallTableRows`), on every start: a build that was interrupted (leaving an
 * invalid index) is dropped and started again, one that is in place costs one catalog read.
 */
export interface OnlineIndex {
  name: string;
  table: string;
  /** What follows `on <table>`; `{trgm}` stands for the schema the extension is installed in. */
  definition: string;
  /** An extension the index needs (its operator class); without it the index is skipped. */
  extension?: 'pg_trgm';
}

/** Up to this many rows a table is indexed by a plain CREATE INDEX. */
export const smallTableRows = 10_000;

export interface OnlineIndexOutcome {
  built: string[];
  /** Indexes left out, with the reason (the queries still answer, by a scan). */
  skipped: { name: string; reason: string }[];
}

/** `pool` is one without statement or query timeouts (`migrateToLatest`'s maintenance pool): a build takes what it takes. */
export async function buildOnlineIndexes(pool: pg.Pool, indexes: readonly OnlineIndex[]): Promise<OnlineIndexOutcome> {
  const outcome: OnlineIndexOutcome = { built: [], skipped: [] };
  if (indexes.length === 0) return outcome;
  const client = await pool.connect();
  const query = <Row extends pg.QueryResultRow>(text: string, values: unknown[] = []) => client.query<Row>(text, values);
  // Session-level lock per schema: instances starting together build each index once, and none
  // drops an index another is still building.
  const lock = "hashtext('switchyard online indexes ' || current_schema())";
  try {
    await query(`select pg_advisory_lock(${lock})`);
    for (const index of indexes) {
      const schemaOfExtension = index.extension ? await ensureExtension(query, index.extension) : undefined;
      if (index.extension && typeof schemaOfExtension !== 'string') {
        outcome.skipped.push({ name: index.name, reason: schemaOfExtension?.reason ?? `extension ${index.extension} missing` });
        continue;
      }
      const state = await query<{ valid: boolean }>(
        `select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid join pg_namespace n on n.oid = c.relnamespace
          where c.relname = $1 and n.nspname = current_schema()`,
        [index.name],
      );
      if (state.rows[0]?.valid) continue;
      if (state.rows[0]) await query(`drop index concurrently if exists "${index.name}"`);
      const definition = index.definition.replaceAll('{trgm}', `"${schemaOfExtension ?? ''}"`);
      // CONCURRENTLY waits for every transaction of the database older than it, and two such
      // builds of expression indexes wait for each other: worth it only where a plain build's
      // SHARE lock would hold writers for long. A small table is indexed in milliseconds.
      const rows = await query<{ count: string }>(`select count(*)::text as count from (select 1 from "${index.table}" limit ${smallTableRows + 1}) as sample`);
      const concurrently = Number(rows.rows[0].count) > smallTableRows ? 'concurrently' : '';
      await query(`create index ${concurrently} "${index.name}" on "${index.table}" ${definition}`);
      outcome.built.push(index.name);
    }
  } finally {
    await query(`select pg_advisory_unlock(${lock})`).catch(() => undefined);
    client.release();
  }
  return outcome;
}

type Query = <Row extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<Row>>;

/**
 * The schema the extension is installed in, installing it if need be and allowed: pg_trgm is a
 * trusted extension (PostgreSQL 13+), so a role with CREATE on the database may install it, no
 * superuser needed. It goes into `public` when the role may create there (where extensions
 * usually live, shared by every schema of the database), else into the current schema.
 */
async function ensureExtension(query: Query, name: string): Promise<string | { reason: string }> {
  const installed = async () =>
    (await query<{ schema: string }>('select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = $1', [name])).rows[0]?.schema;
  const existing = await installed();
  if (existing) return existing;
  const rights = await query<{ available: boolean; allowed: boolean; public: boolean }>(
    `select exists (select 1 from pg_available_extensions where name = $1) as available,
            (select rolsuper from pg_roles where rolname = current_user)
              or (has_database_privilege(current_database(), 'CREATE')
                  and coalesce((select trusted from pg_available_extension_versions v join pg_available_extensions a on a.name = v.name and a.default_version = v.version where v.name = $1), false)) as allowed,
            case when exists (select 1 from pg_namespace where nspname = 'public') then has_schema_privilege('public', 'CREATE') else false end as public`,
    [name],
  );
  const { available, allowed, public: intoPublic } = rights.rows[0];
  if (!available) return { reason: `extension ${name} is not available on the server (install the PostgreSQL contrib package)` };
  if (!allowed) return { reason: `this role may not create extension ${name}: run "create extension ${name}" as a superuser, then restart` };
  try {
    await query(intoPublic ? `create extension if not exists ${name} schema public` : `create extension if not exists ${name}`);
  } catch (error) {
    // Another database session installed it at the same moment (a unique violation): use theirs.
    if ((error as { code?: string }).code !== '23505') throw error;
  }
  return (await installed()) ?? { reason: `extension ${name} could not be installed` };
}
