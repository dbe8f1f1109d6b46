import { CompiledQuery, type Kysely } from 'kysely';
import type pg from 'pg';
import { mapPacked } from '../../core/map-packed.js';
import type { Database } from '../../store/database.js';
import type { UsageRollupDelta } from './usage-rollups.js';
import { summariesPerRollup, type UsageSummaryDelta } from './summarize-usage.js';
import type { CoveredSettlement, FundsChange, LedgerEntryRow, TakenRow } from './book-rows.js';
import { accountFreeSql, keyFreeSql } from './free-funds.js';

/**
 * The statements of the group-committed books on PostgreSQL, run inside the caller's
 * transaction: the batch writer's pooled connection, or a Kysely transaction (a task's ending).
 * A batch is two statements whatever its size — one that writes the rows and takes what they
 * settle under lock, one that applies the charges — so its transaction is four round trips
 * (with `begin` and `commit`). What they write (who is charged what) is decided in `billing/`
 * between the two; nothing here knows a money rule. A batch `billing/` found covered by its
 * lease holds is one statement (`applyCoveredBooks`), with what each settlement is charged
 * decided before it is sent.
 */
export type PostgresRun = <Row>(query: { name?: string; text: string; values: unknown[] }) => Promise<{ rows: Row[] }>;

/** Statements on a pooled connection, prepared once per connection by name. */
export function runOnClient(client: pg.PoolClient): PostgresRun {
  return async <Row>(query: { name?: string; text: string; values: unknown[] }) => (await client.query(query)) as unknown as { rows: Row[] };
}

/** Statements inside a Kysely transaction (on PostgreSQL), unprepared. */
export function runInTransaction(trx: Kysely<Database>): PostgresRun {
  return async <Row>(query: { text: string; values: unknown[] }) => ({ rows: (await trx.executeQuery<Row>(CompiledQuery.raw(query.text, query.values))).rows });
}

/**
 * A settlement a batch may apply: it is applied when it has no row (`rowId` null) or when its row
 * is new. `heldInLease` set: the reservation is a lease row that shrinks by it; otherwise the
 * reservation row (if any) is deleted.
 */
export interface CandidateSettlement {
  rowId: string | null;
  reservationId: string | null;
  heldInLease: bigint | null;
  accountId: string;
  keyId: string | null;
}

export interface TakenBooks {
  /** Ids of the request rows inserted (those not there yet). */
  fresh: string[];
  /** Reservation rows deleted. */
  deleted: TakenRow[];
  /** Lease rows shrunk, each with the amount taken out of it. */
  shrunk: TakenRow[];
  /** What each locked account has free (credits − usage − reserved). */
  accounts: Array<{ id: string; free: bigint }>;
  /** What each locked key has free (limit − usage − reserved); null for a key without a limit. */
  keys: Array<{ id: string; free: bigint | null }>;
}

type RequestJsonRows = ReadonlyArray<Record<string, string | number | null>>;

/**
 * The columns a statement inserts request rows by, and the prepared statement's name for them: one
 * name per statement and column set (`json_populate_recordset` reads each column at its table type,
 * whatever columns the rows have), so that each set is planned once per connection.
 */
function namedForColumns(prefix: string): (rows: RequestJsonRows) => { columns: string; name: string } {
  const names = new Map<string, string>();
  return (rows) => {
    const columns = (rows.length > 0 ? Object.keys(rows[0]) : ['id']).join(', ');
    let name = names.get(columns);
    if (name === undefined) {
      name = `${prefix}_${names.size}`;
      names.set(columns, name);
    }
    return { columns, name };
  };
}

const takeStatement = namedForColumns('switchyard_take_books');

/**
 * The first statement of a batch: inserts the request log rows not there yet, takes the
 * reservations of the settlements whose row was new (or that have none) — deleting per-request
 * rows, shrinking each lease row by the sum its requests held when it still holds that much —
 * then locks the accounts and the keys those settlements charge, each in id order, answering
 * what each has free. The order of the locks is the one every writer keeps (reservations, then
 * accounts, then keys, in id order), so concurrent writers cannot deadlock: the parts of a
 * `union all` run in turn, each array of ids is read in full before its scan starts, and each
 * locking step runs above its sort. `for no key update` is the mode the updates take anyway:
 * inserts that only reference an account (ledger entries, reservations) do not wait for it.
 */
export async function takeBooks(run: PostgresRun, rows: RequestJsonRows, settlements: readonly CandidateSettlement[]): Promise<TakenBooks> {
  const taken: TakenBooks = { fresh: [], deleted: [], shrunk: [], accounts: [], keys: [] };
  if (rows.length === 0 && settlements.length === 0) return taken;
  const { columns, name } = takeStatement(rows);
  const result = await run<{ kind: 'fresh' | 'deleted' | 'shrunk' | 'account' | 'key'; id: string; account_id: string | null; key_id: string | null; amount: bigint | null }>({
    name,
    text: `with inserted as (
             insert into requests (${columns}) select ${columns} from json_populate_recordset(null::requests, $1::json) on conflict (id) do nothing returning id),
           active as (
             select s.* from unnest($2::text[], $3::text[], $4::int8[], $5::text[], $6::text[]) as s(row_id, reservation_id, held, account_id, key_id)
             where s.row_id is null or s.row_id in (select id from inserted)),
           deleted as (
             delete from reservations where id = any(array(select reservation_id from active where held is null and reservation_id is not null))
             returning id, account_id, key_id, amount),
           shrunk as (
             update reservations set amount = reservations.amount - v.amount
             from (select reservation_id as id, sum(held)::int8 as amount from active where held is not null group by reservation_id) as v
             where reservations.id = v.id and reservations.amount >= v.amount
             returning reservations.id, reservations.account_id, reservations.key_id, v.amount)
           select 'fresh' as kind, id, null::text as account_id, null::text as key_id, null::int8 as amount from inserted
           union all select 'deleted', id, account_id, key_id, amount from deleted
           union all select 'shrunk', id, account_id, key_id, amount from shrunk
           union all select 'account', id, null, null, free from (
             select id, ${accountFreeSql} as free from accounts
             where id = any(array(select account_id from active union select account_id from deleted union select account_id from shrunk))
             order by id for no key update) as locked_accounts
           union all select 'key', id, null, null, free from (
             select id, ${keyFreeSql} as free from api_keys
             where id = any(array(select key_id from active union select key_id from deleted union select key_id from shrunk))
             order by id for no key update) as locked_keys`,
    values: [
      // Amounts arrive as strings (`toRequestJsonRow`): no replacer, which costs a call back per field.
      JSON.stringify(rows),
      mapPacked(settlements, (settlement) => settlement.rowId),
      mapPacked(settlements, (settlement) => settlement.reservationId),
      mapPacked(settlements, (settlement) => (settlement.heldInLease === null ? null : settlement.heldInLease.toString())),
      mapPacked(settlements, (settlement) => settlement.accountId),
      mapPacked(settlements, (settlement) => settlement.keyId),
    ],
  });
  for (const row of result.rows) {
    if (row.kind === 'fresh') taken.fresh.push(row.id);
    else if (row.kind === 'deleted') taken.deleted.push({ id: row.id, account_id: row.account_id!, key_id: row.key_id, amount: row.amount! });
    else if (row.kind === 'shrunk') taken.shrunk.push({ id: row.id, account_id: row.account_id!, key_id: row.key_id, amount: row.amount! });
    else if (row.kind === 'account') taken.accounts.push({ id: row.id, free: row.amount ?? 0n });
    else taken.keys.push({ id: row.id, free: row.amount });
  }
  return taken;
}

export interface AppliedBooks {
  /** Releases and charges of the accounts' and keys' totals. */
  accounts: readonly FundsChange[];
  keys: readonly FundsChange[];
  entries: readonly LedgerEntryRow[];
  /** New rows whose logged cost is what was charged rather than their actual cost. */
  costs: ReadonlyArray<{ id: string; cost: bigint }>;
  rollups: readonly UsageRollupDelta[];
  /** The report's summaries of those rollups (`summarizeUsage`). */
  summaries: readonly UsageSummaryDelta[];
}

/**
 * The second statement of a batch, once the charges are allocated: the accounts' and keys'
 * totals, the ledger entries, the corrected request costs, the usage rollups and their
 * summaries, in one statement (the accounts and keys are already locked by `takeBooks`).
 */
export async function applyBooks(run: PostgresRun, books: AppliedBooks): Promise<void> {
  if (books.accounts.length === 0 && books.keys.length === 0 && books.entries.length === 0 && books.costs.length === 0 && books.rollups.length === 0) return;
  const { entries, costs, rollups, summaries } = books;
  await run({
    name: 'switchyard_apply_books',
    text: `with charged_accounts as (
             update accounts set reserved = accounts.reserved - v.released, total_usage = accounts.total_usage + v.charged
             from unnest($1::text[], $2::int8[], $3::int8[]) as v(id, released, charged) where accounts.id = v.id),
           charged_keys as (
             update api_keys set reserved = api_keys.reserved - v.released, usage = api_keys.usage + v.charged,
               period_usage = api_keys.period_usage + v.charged
             from unnest($4::text[], $5::int8[], $6::int8[]) as v(id, released, charged) where api_keys.id = v.id),
           entries as (
             insert into ledger_entries (id, account_id, key_id, kind, amount, request_id, note, created_at)
             select * from unnest($7::text[], $8::text[], $9::text[], $10::text[], $11::int8[], $12::text[], $13::text[], $14::text[])),
           costs as (
             update requests set cost = v.cost from unnest($15::text[], $16::int8[]) as v(id, cost) where requests.id = v.id),
           rolled as (
             insert into usage_rollups (account_id, day, key_id, model, provider, requests, prompt_tokens, completion_tokens, cost)
             select * from unnest($17::text[], $18::text[], $19::text[], $20::text[], $21::text[], $22::int[], $23::int8[], $24::int8[], $25::int8[])
             on conflict (account_id, day, key_id, model, provider) do update set requests = usage_rollups.requests + excluded.requests,
               prompt_tokens = usage_rollups.prompt_tokens + excluded.prompt_tokens, completion_tokens = usage_rollups.completion_tokens + excluded.completion_tokens,
               cost = usage_rollups.cost + excluded.cost)
           ${insertSummaries}
           select * from unnest($26::text[], $27::text[], $28::text[], $29::text[], $30::int8[], $31::int8[], $32::int8[], $33::int8[])
           ${addToSummaries}`,
    values: [
      ...columnsOf(books.accounts),
      ...columnsOf(books.keys),
      mapPacked(entries, (entry) => entry.id),
      mapPacked(entries, (entry) => entry.account_id),
      mapPacked(entries, (entry) => entry.key_id),
      mapPacked(entries, (entry) => entry.kind),
      mapPacked(entries, (entry) => entry.amount.toString()),
      mapPacked(entries, (entry) => entry.request_id),
      mapPacked(entries, (entry) => entry.note),
      mapPacked(entries, (entry) => entry.created_at),
      mapPacked(costs, (row) => row.id),
      mapPacked(costs, (row) => row.cost.toString()),
      mapPacked(rollups, (delta) => delta.accountId),
      mapPacked(rollups, (delta) => delta.day),
      mapPacked(rollups, (delta) => delta.keyId),
      mapPacked(rollups, (delta) => delta.model),
      mapPacked(rollups, (delta) => delta.provider),
      mapPacked(rollups, (delta) => delta.requests),
      mapPacked(rollups, (delta) => delta.promptTokens.toString()),
      mapPacked(rollups, (delta) => delta.completionTokens.toString()),
      mapPacked(rollups, (delta) => delta.cost.toString()),
      mapPacked(summaries, (delta) => delta.accountId),
      mapPacked(summaries, (delta) => delta.dimension),
      mapPacked(summaries, (delta) => delta.period),
      mapPacked(summaries, (delta) => delta.value),
      mapPacked(summaries, (delta) => delta.requests),
      mapPacked(summaries, (delta) => delta.promptTokens.toString()),
      mapPacked(summaries, (delta) => delta.completionTokens.toString()),
      mapPacked(summaries, (delta) => delta.cost.toString()),
    ],
  });
}

const insertSummaries = 'insert into usage_summaries (account_id, dimension, period, value, requests, prompt_tokens, completion_tokens, cost)';
const addToSummaries = `on conflict (account_id, dimension, period, value) do update set requests = usage_summaries.requests + excluded.requests,
  prompt_tokens = usage_summaries.prompt_tokens + excluded.prompt_tokens, completion_tokens = usage_summaries.completion_tokens + excluded.completion_tokens,
  cost = usage_summaries.cost + excluded.cost`;

function columnsOf(changes: readonly FundsChange[]): unknown[] {
  return [mapPacked(changes, (change) => change.id), mapPacked(changes, (change) => change.released.toString()), mapPacked(changes, (change) => change.charged.toString())];
}

export interface CoveredBooks {
  /** Request rows as `toRequestJsonRow` makes them. */
  rows: RequestJsonRows;
  settlements: readonly CoveredSettlement[];
  rollups: readonly UsageRollupDelta[];
  /** The summary rows the rollups add to, sorted (`summarizeUsageByRollup`)... */
  summaries: readonly UsageSummaryDelta[];
  /** ...and for each rollup the index of each summary it adds to (`summariesPerRollup` each). */
  summaryOf: readonly number[];
  /** Per row: the index of its rollup, or null. */
  rollupOf: ReadonlyArray<number | null>;
  /** Per row, what it adds to its rollup. */
  rowUsage: ReadonlyArray<{ promptTokens: number; completionTokens: number; cost: bigint }>;
  createdAt: string;
}

const coveredStatement = namedForColumns('switchyard_covered_books');

/**
 * A whole batch in one statement, for a batch `billing/` found covered (`coveredBatch`): first it
 * locks, in the global order (reservations, accounts, keys, each in id order), the lease rows,
 * accounts and keys of its settlements and checks that each lease row still holds its requests'
 * sum for the same account and key and that no account or limited key has less than nothing
 * free. Only then does it write: the request rows not there yet; for the settlements whose row
 * is new, the lease rows shrunk, the accounts' and keys' totals, a charge entry each; the rollups
 * of the new rows and their summaries. When the check fails it writes nothing (`ok` false) and the caller takes the
 * general path.
 */
export async function applyCoveredBooks(run: PostgresRun, books: CoveredBooks): Promise<{ ok: boolean; fresh: string[] }> {
  const { columns, name } = coveredStatement(books.rows);
  const { settlements, rollups, summaries } = books;
  const result = await run<{ ok: boolean; fresh: string[] }>({
    name,
    text: `with s as (
             select * from unnest($2::text[], $3::text[], $4::int8[], $5::text[], $6::text[], $7::int8[], $8::text[])
               as s(row_id, lease_id, held, account_id, key_id, cost, entry_id)),
           needed as (select lease_id as id, account_id, key_id, sum(held)::int8 as amount from s group by lease_id, account_id, key_id),
           locked as (
             select 'lease' as kind, id, ok from (
               select r.id, r.amount >= n.amount and r.account_id = n.account_id and r.key_id is not distinct from n.key_id as ok
               from reservations r join needed n on n.id = r.id order by r.id for no key update of r) as leases
             union all select 'account', id, free >= 0 from (
               select id, ${accountFreeSql} as free from accounts
               where id = any(array(select account_id from s)) order by id for no key update) as locked_accounts
             union all select 'key', id, free is null or free >= 0 from (
               select id, ${keyFreeSql} as free from api_keys
               where id = any(array(select key_id from s where key_id is not null)) order by id for no key update) as locked_keys),
           guard as (
             select coalesce(bool_and(ok), true) and count(*) filter (where kind = 'lease') = (select count(*) from needed) as ok from locked),
           inserted as (
             insert into requests (${columns}) select ${columns} from json_populate_recordset(null::requests, $1::json)
             where (select ok from guard) on conflict (id) do nothing returning id),
           active as (select * from s where row_id in (select id from inserted)),
           shrunk as (
             update reservations set amount = reservations.amount - v.amount
             from (select lease_id as id, sum(held)::int8 as amount from active group by lease_id) as v where reservations.id = v.id),
           charged_accounts as (
             update accounts set reserved = accounts.reserved - v.released, total_usage = accounts.total_usage + v.charged
             from (select account_id as id, sum(held)::int8 as released, sum(cost)::int8 as charged from active group by account_id) as v
             where accounts.id = v.id),
           charged_keys as (
             update api_keys set reserved = api_keys.reserved - v.released, usage = api_keys.usage + v.charged,
               period_usage = api_keys.period_usage + v.charged
             from (select key_id as id, sum(held)::int8 as released, sum(cost)::int8 as charged from active where key_id is not null group by key_id) as v
             where api_keys.id = v.id),
           entries as (
             insert into ledger_entries (id, account_id, key_id, kind, amount, request_id, note, created_at)
             select entry_id, account_id, key_id, 'charge', cost, row_id, null, $9 from active where cost > 0),
           usage as (
             select u.rollup, count(*)::int as requests, sum(u.prompt)::int8 as prompt, sum(u.completion)::int8 as completion, sum(u.cost)::int8 as cost
             from unnest($10::text[], $11::int[], $12::int8[], $13::int8[], $14::int8[]) as u(row_id, rollup, prompt, completion, cost)
             where u.rollup is not null and u.row_id in (select id from inserted) group by u.rollup),
           rolled as (
             insert into usage_rollups (account_id, day, key_id, model, provider, requests, prompt_tokens, completion_tokens, cost)
             select k.account_id, k.day, k.key_id, k.model, k.provider, u.requests, u.prompt, u.completion, u.cost
             from usage u join unnest($15::text[], $16::text[], $17::text[], $18::text[], $19::text[]) with ordinality as k(account_id, day, key_id, model, provider, n)
               on k.n = u.rollup + 1
             order by u.rollup
             on conflict (account_id, day, key_id, model, provider) do update set requests = usage_rollups.requests + excluded.requests,
               prompt_tokens = usage_rollups.prompt_tokens + excluded.prompt_tokens, completion_tokens = usage_rollups.completion_tokens + excluded.completion_tokens,
               cost = usage_rollups.cost + excluded.cost),
           summed as (
             select m.summary, sum(u.requests)::int8 as requests, sum(u.prompt)::int8 as prompt, sum(u.completion)::int8 as completion, sum(u.cost)::int8 as cost
             from usage u join (select (o - 1) / ${summariesPerRollup} as rollup, summary from unnest($24::int[]) with ordinality as m(summary, o)) m on m.rollup = u.rollup
             group by m.summary),
           summarized as (
             ${insertSummaries}
             select k.account_id, k.dimension, k.period, k.value, s.requests, s.prompt, s.completion, s.cost
             from summed s join unnest($20::text[], $21::text[], $22::text[], $23::text[]) with ordinality as k(account_id, dimension, period, value, n)
               on k.n = s.summary + 1
             order by s.summary
             ${addToSummaries})
           select (select ok from guard) as ok, array(select id from inserted) as fresh`,
    values: [
      JSON.stringify(books.rows),
      mapPacked(settlements, (settlement) => settlement.rowId),
      mapPacked(settlements, (settlement) => settlement.leaseId),
      mapPacked(settlements, (settlement) => settlement.held.toString()),
      mapPacked(settlements, (settlement) => settlement.accountId),
      mapPacked(settlements, (settlement) => settlement.keyId),
      mapPacked(settlements, (settlement) => settlement.cost.toString()),
      mapPacked(settlements, (settlement) => settlement.entryId),
      books.createdAt,
      mapPacked(books.rows, (row) => row.id),
      books.rollupOf,
      mapPacked(books.rowUsage, (usage) => usage.promptTokens),
      mapPacked(books.rowUsage, (usage) => usage.completionTokens),
      mapPacked(books.rowUsage, (usage) => usage.cost.toString()),
      mapPacked(rollups, (delta) => delta.accountId),
      mapPacked(rollups, (delta) => delta.day),
      mapPacked(rollups, (delta) => delta.keyId),
      mapPacked(rollups, (delta) => delta.model),
      mapPacked(rollups, (delta) => delta.provider),
      mapPacked(summaries, (delta) => delta.accountId),
      mapPacked(summaries, (delta) => delta.dimension),
      mapPacked(summaries, (delta) => delta.period),
      mapPacked(summaries, (delta) => delta.value),
      books.summaryOf,
    ],
  });
  const [answer] = result.rows;
  return { ok: answer.ok, fresh: answer.fresh };
}
