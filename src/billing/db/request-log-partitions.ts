import type pg from 'pg';
import { idFloorAt, readIdTime } from '../../core/id-time.js';

/**
 * The request log on PostgreSQL as a table partitioned by range of `id` (native declarative
 * partitioning), one partition per UTC day. Ids are time-ordered (`core/id-time.ts`), so a range of
 * ids is a range of time: the primary key (id) is the partition key as PostgreSQL requires,
 * `on conflict (id)` of the books keeps working, and every read that bounds the id — the read by
 * id, a date filter, the cursor of the next page — is pruned to the partitions it can touch.
 *
 * Statements only; `request-log-maintenance.ts` decides when. Every function takes a client of
 * its own without a statement timeout (a VALIDATE on a large table takes what it takes).
 */

export const dayMs = 86_400_000;
const prefix = 'req';
/** The unpartitioned table a conversion keeps, whole, as the partition of everything before its cut. */
export const formerTable = 'requests_before_partitions';
const cutConstraint = 'requests_before_partitions_cut';
/**
 * The DEFAULT partition: the safety net that takes the rows no day partition is ready for (every
 * instance's maintenance failing past the days made ahead), so that the books' insert — a charge
 * and its row in one transaction — never fails for want of a partition. Empty while maintenance
 * runs; `adoptDefaultRows` turns what it caught into a partition of its own.
 */
export const defaultTable = 'requests_default';
const adoptConstraint = 'requests_default_adopt';

export interface RequestLogPartition {
  name: string;
  /** Lower bound (inclusive), undefined for MINVALUE. */
  from?: string;
  /** Upper bound (exclusive). */
  to: string;
  /** A DETACH ... CONCURRENTLY that was interrupted (its second transaction did not run). */
  detachPending: boolean;
}

export const startOfDay = (ms: number) => Math.floor(ms / dayMs) * dayMs;
export const dayBound = (ms: number) => idFloorAt(prefix, ms);
const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
const dayName = (ms: number) => `requests_${dayText(ms)}`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

export async function isPartitioned(client: pg.ClientBase): Promise<boolean> {
  const result = await client.query<{ kind: string }>("select relkind as kind from pg_class where oid = to_regclass('requests')");
  return result.rows[0]?.kind === 'p';
}

/**
 * Turns the unpartitioned `requests` into a partitioned one without holding writers for longer than
 * a catalog change, whatever its size:
 *
 * 1. a CHECK (id < cut) is added NOT VALID (a moment's lock, no scan), `cut` being a day boundary
 *    at least a day after the newest row and after now, so rows written meanwhile satisfy it;
 * 2. VALIDATE scans the table under SHARE UPDATE EXCLUSIVE, which lets inserts and updates run;
 * 3. one short transaction (lock_timeout bounded; the caller tries again later when it expires)
 *    renames the table to `requests_before_partitions`, creates the partitioned `requests` with
 *    the same columns, primary key and indexes (names kept), and attaches the old table as the
 *    partition FROM (MINVALUE) TO (cut): the validated CHECK proves the bound, so PostgreSQL skips
 *    the scan, and its existing indexes are attached to the parent's rather than built again.
 *
 * Days from `cut` on get partitions of their own (`createPartitionsAhead`); the old table is
 * dropped whole by the retention once its newest day has passed it. Returns the cut's id.
 */
export async function convertToPartitioned(client: pg.ClientBase, nowMs: number, options: { lockTimeoutMs?: number; emptyCutMs?: number } = {}): Promise<string> {
  const lockTimeoutMs = options.lockTimeoutMs ?? 2_000;
  const newest = (await client.query<{ id: string | null }>('select max(id) as id from requests')).rows[0]?.id;
  const newestMs = newest ? (readIdTime(newest) ?? 0) : 0;
  // `emptyCutMs`: for a log nothing writes yet that is about to be filled with past days (the
  // scale bench's seed), which then land in day partitions; the caller makes them before writing.
  const empty = newest === undefined || newest === null;
  const cut = dayBound(empty && options.emptyCutMs !== undefined ? startOfDay(options.emptyCutMs) : startOfDay(Math.max(nowMs, Date.now(), newestMs)) + 2 * dayMs);
  // A constraint of an earlier attempt may name another cut: start over with this one.
  await client.query(`alter table requests drop constraint if exists ${cutConstraint}`);
  await client.query(`alter table requests add constraint ${cutConstraint} check (id < ${literal(cut)}) not valid`);
  await client.query(`alter table requests validate constraint ${cutConstraint}`);
  const indexes = await client.query<{ name: string; definition: string; primary: boolean }>(
    `select c.relname as name, pg_get_indexdef(i.indexrelid) as definition, i.indisprimary as primary
       from pg_index i join pg_class c on c.oid = i.indexrelid where i.indrelid = 'requests'::regclass`,
  );
  await client.query('begin');
  try {
    await client.query(`set local lock_timeout = ${lockTimeoutMs}`);
    await client.query('lock table requests in access exclusive mode');
    if (await isPartitioned(client)) {
      await client.query('rollback');
      return cut;
    }
    await client.query(`alter table requests rename to ${formerTable}`);
    for (const index of indexes.rows) {
      if (index.primary) await client.query(`alter table ${formerTable} rename constraint "${index.name}" to ${formerTable}_pkey`);
      else await client.query(`alter index "${index.name}" rename to "${`${index.name}_before`.slice(0, 63)}"`);
    }
    await client.query(`create table requests (like ${formerTable} including defaults) partition by range (id)`);
    for (const index of indexes.rows) {
      if (index.primary) await client.query(`alter table requests add constraint "${index.name}" primary key (id)`);
      // "CREATE [UNIQUE] INDEX name ON schema.requests USING …": the same on the parent, same name.
      else await client.query(index.definition.replace(/ ON (\S+\.)?requests /, ' ON requests '));
    }
    await client.query(`alter table requests attach partition ${formerTable} for values from (minvalue) to (${literal(cut)})`);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  }
  return cut;
}

export async function listPartitions(client: pg.ClientBase): Promise<RequestLogPartition[]> {
  const result = await client.query<{ name: string; bound: string; pending: boolean }>(
    `select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound, i.inhdetachpending as pending
       from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'requests'::regclass`,
  );
  const partitions = result.rows.filter((row) => row.bound !== 'DEFAULT').map((row) => {
    // "FOR VALUES FROM ('req_…') TO ('req_…')" or "FROM (MINVALUE) TO (…)".
    const match = /FROM \((?:'([^']*)'|MINVALUE)\) TO \('([^']*)'\)/.exec(row.bound);
    if (!match) throw new Error(`request log partition ${row.name} has a bound this code does not make: ${row.bound}`);
    return { name: row.name, from: match[1], to: match[2], detachPending: row.pending };
  });
  return partitions.sort((left, right) => (left.to < right.to ? -1 : left.to > right.to ? 1 : 0));
}

/**
 * Adds a partition per UTC day after the last one until the days up to `untilMs` are covered.
 * Each is created as a plain table and then attached: ATTACH PARTITION takes SHARE UPDATE
 * EXCLUSIVE on `requests` (inserts and reads go on) where CREATE TABLE … PARTITION OF would take
 * ACCESS EXCLUSIVE; the new table is empty, so its bound check and its indexes cost nothing.
 */
export async function createPartitionsAhead(client: pg.ClientBase, untilMs: number): Promise<string[]> {
  const partitions = await listPartitions(client);
  const last = partitions.at(-1);
  if (!last) throw new Error('the partitioned request log has no partition');
  const lastMs = readIdTime(last.to);
  if (lastMs === undefined) throw new Error(`request log partition ${last.name} ends at an id without a time: ${last.to}`);
  let fromMs: number = lastMs;
  const created: string[] = [];
  while (fromMs < untilMs) {
    const toMs: number = startOfDay(fromMs) + dayMs;
    const name = dayName(fromMs);
    await client.query(`create table if not exists ${name} (like requests including defaults)`);
    await client.query(`alter table requests attach partition ${name} for values from (${literal(dayBound(fromMs))}) to (${literal(dayBound(toMs))})`);
    created.push(name);
    fromMs = toMs;
  }
  return created;
}

/** Whether the DEFAULT partition is attached. */
export async function hasDefaultPartition(client: pg.ClientBase): Promise<boolean> {
  const result = await client.query<{ attached: boolean }>(
    `select exists (select 1 from pg_inherits i join pg_class c on c.oid = i.inhrelid
                     where i.inhparent = 'requests'::regclass and pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT') as attached`,
  );
  return result.rows[0].attached;
}

/**
 * Attaches the DEFAULT partition when it is not (a log converted before it existed, or a run cut
 * short in `adoptDefaultRows`). Created empty and attached: SHARE UPDATE EXCLUSIVE on `requests`,
 * inserts and reads go on; PostgreSQL checks the new table for rows of other partitions (none).
 */
export async function ensureDefaultPartition(client: pg.ClientBase): Promise<boolean> {
  if (await hasDefaultPartition(client)) return false;
  await client.query(`create table if not exists ${defaultTable} (like requests including defaults)`);
  await client.query(`alter table requests attach partition ${defaultTable} default`);
  return true;
}

/**
 * Makes the rows the DEFAULT partition caught (days no partition was made for) a range partition
 * of their own, from the end of the last partition to a day boundary two days after the newest
 * of them and after now, and attaches a new, empty DEFAULT. No row is copied, and no row is ever
 * out of `requests` (a read or a correction of the books finds every one throughout):
 *
 * 1. a CHECK (from ≤ id < cut) is added NOT VALID on the default and VALIDATEd: a scan under
 *    SHARE UPDATE EXCLUSIVE, which lets inserts go on (rows written meanwhile satisfy it: the cut
 *    is after now);
 * 2. one short transaction (lock_timeout bounded; the next run starts over when it expires)
 *    detaches the default, renames it `requests_<first day>_<last day>`, attaches it for
 *    [from, cut) — the validated CHECK proves the bound, so PostgreSQL skips the scan, and its
 *    indexes, already the parent's, are attached again rather than built — and attaches a new
 *    empty DEFAULT. Writers wait for that transaction only: catalog changes, no scan.
 *
 * The caller then makes day partitions from the cut on. The retention drops the adopted
 * partition whole once its newest day has passed it, as it drops a day. Moving the rows into day
 * partitions instead would write every row of the outage twice (at 10,000 requests/s, 864M rows
 * a day) and could not be done without a window where moved rows are in neither place, since
 * PostgreSQL refuses a partition whose range holds rows of the default.
 *
 * Returns the adopted partition's name, or undefined when the default is empty. Rows below the
 * first partition (ids older than every day kept: only an id made on a clock days wrong) cannot
 * get a range; they stay in the default, readable, and the adoption waits for them to be deleted.
 */
export async function adoptDefaultRows(client: pg.ClientBase, nowMs: number, options: { lockTimeoutMs?: number } = {}): Promise<{ adopted?: string; stuckBelow?: string }> {
  if (!(await hasDefaultPartition(client))) return {};
  const span = (await client.query<{ least: string | null; greatest: string | null }>(`select min(id) as least, max(id) as greatest from ${defaultTable}`)).rows[0];
  if (span.least === null || span.greatest === null) return {};
  const partitions = await listPartitions(client);
  const last = partitions.at(-1);
  if (!last) throw new Error('the partitioned request log has no partition');
  if (span.least < last.to) return { stuckBelow: span.least };
  const fromMs = readIdTime(last.to);
  if (fromMs === undefined) throw new Error(`request log partition ${last.name} ends at an id without a time: ${last.to}`);
  const cutMs = startOfDay(Math.max(nowMs, Date.now(), readIdTime(span.greatest) ?? 0)) + 2 * dayMs;
  const cut = dayBound(cutMs);
  const name = `requests_${dayText(fromMs)}_${dayText(cutMs - dayMs)}`;
  await client.query(`alter table ${defaultTable} drop constraint if exists ${adoptConstraint}`);
  await client.query(`alter table ${defaultTable} add constraint ${adoptConstraint} check (id >= ${literal(last.to)} and id < ${literal(cut)}) not valid`);
  await client.query(`alter table ${defaultTable} validate constraint ${adoptConstraint}`);
  await client.query('begin');
  try {
    await client.query(`set local lock_timeout = ${options.lockTimeoutMs ?? 2_000}`);
    await client.query('lock table requests in access exclusive mode');
    await client.query(`alter table requests detach partition ${defaultTable}`);
    await client.query(`alter table ${defaultTable} rename to ${name}`);
    await client.query(`alter table requests attach partition ${name} for values from (${literal(last.to)}) to (${literal(cut)})`);
    await client.query(`alter table ${name} drop constraint ${adoptConstraint}`);
    await client.query(`create table ${defaultTable} (like requests including defaults)`);
    await client.query(`alter table requests attach partition ${defaultTable} default`);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    // The constraint bounds the default's inserts at the cut: never leave it behind.
    await client.query(`alter table ${defaultTable} drop constraint if exists ${adoptConstraint}`).catch(() => undefined);
    throw error;
  }
  return { adopted: name };
}

/**
 * Detaches a partition and drops it. Without a DEFAULT partition: DETACH … CONCURRENTLY, outside
 * a transaction (it waits for the queries that use it instead of locking them out); a detach
 * that was interrupted is finished first (FINALIZE). With one (every log this code keeps): the
 * plain DETACH, a moment's catalog change bounded by lock_timeout.
 */
export async function dropPartition(client: pg.ClientBase, partition: RequestLogPartition, options: { lockTimeoutMs?: number } = {}): Promise<void> {
  if (partition.detachPending) {
    await client.query(`alter table requests detach partition ${partition.name} finalize`);
  } else if (await hasDefaultPartition(client)) {
    // PostgreSQL refuses DETACH … CONCURRENTLY beside a DEFAULT partition: the plain DETACH, a
    // catalog change under ACCESS EXCLUSIVE on `requests` (no scan), bounded by lock_timeout so
    // that writers queued behind it wait that long at most (the next run tries again).
    await client.query('begin');
    try {
      await client.query(`set local lock_timeout = ${options.lockTimeoutMs ?? 2_000}`);
      await client.query(`alter table requests detach partition ${partition.name}`);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    }
  } else {
    await client.query(`alter table requests detach partition ${partition.name} concurrently`);
  }
  await client.query(`drop table ${partition.name}`);
}
