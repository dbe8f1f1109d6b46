import { CompiledQuery, type Kysely } from 'kysely';
import type pg from 'pg';
import type { Database } from '../database.js';
import type { UsageRollupDelta } from './usage-rollups.js';
import type { FundsChange, LedgerEntryRow, TakenRow } from './book-rows.js';

/**
 * The statements of the group-committed books on PostgreSQL, each one set-based statement over
 * arrays, run inside the caller's transaction: the batch writer's pooled connection, or a
 * Kysely transaction (a task's ending). What they write (who is charged what) is decided in
 * `billing/`; nothing here knows a money rule.
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

/** Inserts request log rows not there yet; answers the ids it inserted. */
export async function insertRequestRows(run: PostgresRun, values: ReadonlyArray<Record<string, unknown>>): Promise<string[]> {
  if (values.length === 0) return [];
  const columns = Object.keys(values[0]);
  // json_populate_recordset reads each column at its table type, whatever columns the row has.
  const inserted = await run<{ id: string }>({
    text: `insert into requests (${columns.join(', ')}) select ${columns.join(', ')} from json_populate_recordset(null::requests, $1::json) on conflict (id) do nothing returning id`,
    values: [JSON.stringify(values, (_key, value) => (typeof value === 'bigint' ? value.toString() : value))],
  });
  return inserted.rows.map((row) => row.id);
}

/** Deletes the reservations named and answers the rows it deleted (the others were already ended). */
export async function deleteReservations(run: PostgresRun, ids: readonly string[]): Promise<TakenRow[]> {
  if (ids.length === 0) return [];
  const result = await run<TakenRow>({
    name: 'switchyard_take_reservations',
    text: 'delete from reservations where id = any($1::text[]) returning id, account_id, key_id, amount',
    values: [ids],
  });
  return result.rows;
}

/**
 * Takes `amount` out of each named reservation row when it holds at least that much (a lease
 * shrinking by what its requests held); answers the rows it changed, with the amount taken.
 */
export async function shrinkReservations(run: PostgresRun, takes: ReadonlyArray<{ id: string; amount: bigint }>): Promise<TakenRow[]> {
  if (takes.length === 0) return [];
  const result = await run<TakenRow>({
    name: 'switchyard_shrink_reservations',
    text: `update reservations set amount = reservations.amount - v.amount from unnest($1::text[], $2::int8[]) as v(id, amount)
           where reservations.id = v.id and reservations.amount >= v.amount returning reservations.id, account_id, key_id, v.amount as amount`,
    values: [takes.map((take) => take.id), takes.map((take) => take.amount.toString())],
  });
  return result.rows;
}

/**
 * Locks the accounts, then the keys, each in id order (the locking step runs above the sort,
 * and the two halves of the union run in turn): the one global order every writer keeps, so
 * concurrent writers cannot deadlock. Answers what each has free; a key without a limit has a
 * null free amount. `for no key update` is the mode the updates take anyway: inserts that only
 * reference an account (ledger entries, reservations) do not wait for it.
 */
export async function lockFunds(run: PostgresRun, accountIds: readonly string[], keyIds: readonly string[]): Promise<Array<{ kind: 'account' | 'key'; id: string; free: bigint | null }>> {
  if (accountIds.length === 0 && keyIds.length === 0) return [];
  const result = await run<{ kind: 'account' | 'key'; id: string; free: bigint | null }>({
    name: 'switchyard_lock_funds',
    text: `select 'account' as kind, id, free from (select id, total_credits - total_usage - reserved as free from accounts where id = any($1::text[]) order by id for no key update) as locked_accounts
           union all
           select 'key', id, free from (select id, spend_limit - usage - reserved as free from api_keys where id = any($2::text[]) order by id for no key update) as locked_keys`,
    values: [accountIds, keyIds],
  });
  return result.rows;
}

/** Releases and charges the accounts' and keys' totals in one statement. */
export async function changeFunds(run: PostgresRun, accounts: readonly FundsChange[], keys: readonly FundsChange[]): Promise<void> {
  if (accounts.length === 0 && keys.length === 0) return;
  await run({
    name: 'switchyard_charge_funds',
    text: `with charged_accounts as (
             update accounts set reserved = accounts.reserved - v.released, total_usage = accounts.total_usage + v.charged
             from unnest($1::text[], $2::int8[], $3::int8[]) as v(id, released, charged) where accounts.id = v.id returning 1)
           update api_keys set reserved = api_keys.reserved - v.released, usage = api_keys.usage + v.charged
           from unnest($4::text[], $5::int8[], $6::int8[]) as v(id, released, charged) where api_keys.id = v.id`,
    values: [...columnsOf(accounts), ...columnsOf(keys)],
  });
}

function columnsOf(changes: readonly FundsChange[]): unknown[] {
  return [changes.map((change) => change.id), changes.map((change) => change.released.toString()), changes.map((change) => change.charged.toString())];
}

export async function insertLedgerEntries(run: PostgresRun, entries: readonly LedgerEntryRow[]): Promise<void> {
  if (entries.length === 0) return;
  await run({
    name: 'switchyard_insert_entries',
    text: `insert into ledger_entries (id, account_id, key_id, kind, amount, request_id, note, created_at)
           select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int8[], $6::text[], $7::text[], $8::text[])`,
    values: [
      entries.map((entry) => entry.id),
      entries.map((entry) => entry.account_id),
      entries.map((entry) => entry.key_id),
      entries.map((entry) => entry.kind),
      entries.map((entry) => entry.amount.toString()),
      entries.map((entry) => entry.request_id),
      entries.map((entry) => entry.note),
      entries.map((entry) => entry.created_at),
    ],
  });
}

export async function setRequestCosts(run: PostgresRun, costs: ReadonlyArray<{ id: string; cost: bigint }>): Promise<void> {
  if (costs.length === 0) return;
  await run({
    name: 'switchyard_correct_costs',
    text: 'update requests set cost = v.cost from unnest($1::text[], $2::int8[]) as v(id, cost) where requests.id = v.id',
    values: [costs.map((row) => row.id), costs.map((row) => row.cost.toString())],
  });
}

export async function addRollups(run: PostgresRun, deltas: readonly UsageRollupDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  await run({
    name: 'switchyard_add_rollups',
    text: `insert into usage_rollups (account_id, day, key_id, model, provider, requests, prompt_tokens, completion_tokens, cost)
           select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int8[], $8::int8[], $9::int8[])
           on conflict (account_id, day, key_id, model, provider) do update set requests = usage_rollups.requests + excluded.requests,
             prompt_tokens = usage_rollups.prompt_tokens + excluded.prompt_tokens, completion_tokens = usage_rollups.completion_tokens + excluded.completion_tokens,
             cost = usage_rollups.cost + excluded.cost`,
    values: [
      deltas.map((delta) => delta.accountId),
      deltas.map((delta) => delta.day),
      deltas.map((delta) => delta.keyId),
      deltas.map((delta) => delta.model),
      deltas.map((delta) => delta.provider),
      deltas.map((delta) => delta.requests),
      deltas.map((delta) => delta.promptTokens.toString()),
      deltas.map((delta) => delta.completionTokens.toString()),
      deltas.map((delta) => delta.cost.toString()),
    ],
  });
}
