import type pg from 'pg';
import { allocateCharges, type Allocation } from '../../billing/allocate-charges.js';
import { rollUpRequests } from '../../billing/roll-up-requests.js';
import { activeSettlements, chargedRows, notApplied, planSettlements, summarizeCharges, uniqueRows, type BookOutcome, type BooksBatch, type SettlementPlan, type TakenReservation } from './books.js';
import { isDatabaseUnavailable } from '../database-errors.js';
import { toRequestRow } from './requests.js';

/**
 * A batch of settlements, request log rows and usage rollups in one PostgreSQL transaction,
 * each step one set-based statement over arrays (a handful of round trips per batch, whatever
 * its size). Accounts and keys are locked in id order, after the reservations, like every
 * other writer, so concurrent batches (other instances) cannot deadlock. On any error the
 * transaction is rolled back and the connection discarded when it is broken.
 */
export async function writeBooksPostgres(pool: pg.Pool, batch: BooksBatch): Promise<BookOutcome[]> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('begin');
    try {
      const outcomes = await writeInTransaction(client, batch);
      await client.query('commit');
      return outcomes;
    } catch (error) {
      await client.query('rollback').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    }
  } catch (error) {
    broken ??= isDatabaseUnavailable(error) ? (error as Error) : undefined;
    throw error;
  } finally {
    client.release(broken);
  }
}

async function writeInTransaction(client: pg.PoolClient, batch: BooksBatch): Promise<BookOutcome[]> {
  const rows = uniqueRows(batch.items);
  const fresh = new Set<string>();
  if (rows.length > 0) {
    const values = rows.map(toRequestRow);
    const columns = Object.keys(values[0]);
    // json_populate_recordset reads each column at its table type, whatever columns the row has.
    const inserted = await client.query<{ id: string }>(
      `insert into requests (${columns.join(', ')}) select ${columns.join(', ')} from json_populate_recordset(null::requests, $1::json) on conflict (id) do nothing returning id`,
      [JSON.stringify(values, (_key, value) => (typeof value === 'bigint' ? value.toString() : value))],
    );
    for (const row of inserted.rows) fresh.add(row.id);
  }
  const active = activeSettlements(batch.items, fresh);
  const taken = new Map<string, TakenReservation>();
  const reservationIds = active.map((index) => batch.items[index].settlement!.reservationId).filter((id): id is string => id !== null);
  if (reservationIds.length > 0) {
    const result = await client.query<{ id: string; account_id: string; key_id: string | null; amount: bigint }>({
      name: 'switchyard_take_reservations',
      text: 'delete from reservations where id = any($1::text[]) returning id, account_id, key_id, amount',
      values: [reservationIds],
    });
    for (const row of result.rows) taken.set(row.id, { accountId: row.account_id, keyId: row.key_id, amount: row.amount });
  }
  const plan = planSettlements(batch.items, active, taken);
  const allocations = await chargeUnderLock(client, plan, batch);
  const summary = summarizeCharges(plan, allocations, batch.items, batch);
  if (summary.entries.length > 0) {
    const entries = summary.entries;
    await client.query({
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
  const logged = chargedRows(batch.items, rows, fresh, allocations);
  const corrected = logged.filter((row) => row.cost !== row.original);
  if (corrected.length > 0) {
    await client.query({
      name: 'switchyard_correct_costs',
      text: 'update requests set cost = v.cost from unnest($1::text[], $2::int8[]) as v(id, cost) where requests.id = v.id',
      values: [corrected.map((row) => row.record.id), corrected.map((row) => row.cost.toString())],
    });
  }
  const deltas = rollUpRequests(logged.map((row) => row.record));
  if (deltas.length > 0) {
    await client.query({
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
  return batch.items.map((item, index): BookOutcome => {
    const allocation = allocations.get(index);
    if (allocation) return { charged: allocation.charged, uncollected: allocation.uncollected, applied: true };
    return item.row && !item.settlement && fresh.has(item.row.id) ? { charged: 0n, uncollected: 0n, applied: true } : notApplied;
  });
}

type Allocations = Map<number, Allocation>;

/**
 * Locks the batch's accounts and keys in the one global order every writer keeps (accounts by
 * id, then keys by id; the locking step runs above the sort, and the two halves of the union in
 * turn), reading what each has free; allocates every charge against that in memory (its own
 * reservation first, then the free funds); and applies the totals in one statement. Two round
 * trips whatever the batch, and a batch never holds a row while waiting for one that sorts
 * before it, so concurrent batches, reservations and releases (any instance) cannot deadlock.
 * `for no key update` is the mode the updates take anyway: inserts that only reference an
 * account (ledger entries, reservations) do not wait for it.
 */
async function chargeUnderLock(client: pg.PoolClient, plan: SettlementPlan, batch: BooksBatch): Promise<Allocations> {
  const accounts = new Map<string, bigint>();
  const keys = new Map<string, bigint>();
  if (plan.accountIds.length > 0 || plan.keyIds.length > 0) {
    const result = await client.query<{ kind: 'account' | 'key'; id: string; free: bigint | null }>({
      name: 'switchyard_lock_funds',
      text: `select 'account' as kind, id, free from (select id, total_credits - total_usage - reserved as free from accounts where id = any($1::text[]) order by id for no key update) as locked_accounts
             union all
             select 'key', id, free from (select id, spend_limit - usage - reserved as free from api_keys where id = any($2::text[]) order by id for no key update) as locked_keys`,
      values: [plan.accountIds, plan.keyIds],
    });
    for (const row of result.rows) {
      if (row.kind === 'account') accounts.set(row.id, row.free ?? 0n);
      // A key without a limit has no free amount: it is absent from the map.
      else if (row.free !== null) keys.set(row.id, row.free);
    }
  }
  const indexes = [...plan.charges.keys()];
  const allocated = allocateCharges([...plan.charges.values()], accounts, keys);
  const allocations: Allocations = new Map(indexes.map((index, position) => [index, allocated[position]]));
  const summary = summarizeCharges(plan, allocations, batch.items, { createdAt: batch.createdAt, ledgerId: () => '' });
  if (summary.accounts.length > 0 || summary.keys.length > 0) {
    await client.query({
      name: 'switchyard_charge_funds',
      text: `with charged_accounts as (
               update accounts set reserved = accounts.reserved - v.released, total_usage = accounts.total_usage + v.charged
               from unnest($1::text[], $2::int8[], $3::int8[]) as v(id, released, charged) where accounts.id = v.id returning 1)
             update api_keys set reserved = api_keys.reserved - v.released, usage = api_keys.usage + v.charged
             from unnest($4::text[], $5::int8[], $6::int8[]) as v(id, released, charged) where api_keys.id = v.id`,
      values: [...columnsOf(summary.accounts), ...columnsOf(summary.keys)],
    });
  }
  return allocations;
}

function columnsOf(deltas: ReadonlyArray<{ id: string; released: bigint; charged: bigint }>): unknown[] {
  return [deltas.map((delta) => delta.id), deltas.map((delta) => delta.released.toString()), deltas.map((delta) => delta.charged.toString())];
}
