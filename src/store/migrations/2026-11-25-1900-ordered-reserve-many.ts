import { sql, type Kysely } from 'kysely';
import { isPostgres } from './is-postgres.js';
import * as reserveFunction from './2026-11-22-2310-reserve-function.js';
import * as reserveManyFunction from './2026-11-24-2320-reserve-many-function.js';

/**
 * `switchyard_reserve_many` locking in the one global order every writer keeps: the accounts
 * of the batch by id, then its keys by id, all before the first change. The version it replaces
 * locked each reservation's account and key as it came (account A, key of A, account B …), so
 * two batches — or a batch and a settlement, which locks all accounts before all keys — could
 * each hold a row the other waited for: PostgreSQL broke the tie with a deadlock error, and
 * every request of the losing batch was refused. Rows are locked `for no key update`, the mode
 * an update of the balance takes anyway, so inserts that only reference an account (ledger
 * entries, reservations) are not blocked. The checks and outcomes are exactly as before.
 *
 * `switchyard_reserve`, the one-reservation function that `switchyard_reserve_many` superseded,
 * is no longer called by anything and is dropped.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(await isPostgres(db))) return;
  await sql
    .raw(
      `create or replace function switchyard_reserve_many(p_ids text[], p_accounts text[], p_keys text[], p_requests text[], p_amounts bigint[], p_created text[], p_expires text[], p_instances text[])
returns text[] language plpgsql as $$
declare
  outcomes text[] := array[]::text[];
  i integer;
begin
  perform set_config('synchronous_commit', 'off', true);
  -- The row locks are taken in the sort order (the locking step runs above the sort).
  perform 1 from accounts where id = any(p_accounts) order by id for no key update;
  perform 1 from api_keys where id = any(p_keys) order by id for no key update;
  for i in 1 .. coalesce(array_length(p_ids, 1), 0) loop
    update accounts set reserved = reserved + p_amounts[i] where id = p_accounts[i] and total_credits - total_usage - reserved >= p_amounts[i];
    if not found then
      outcomes := outcomes || 'insufficient_balance'::text;
      continue;
    end if;
    if p_keys[i] is not null then
      update api_keys set reserved = reserved + p_amounts[i] where id = p_keys[i] and (spend_limit is null or spend_limit - usage - reserved >= p_amounts[i]);
      if not found then
        update accounts set reserved = reserved - p_amounts[i] where id = p_accounts[i];
        outcomes := outcomes || 'key_limit'::text;
        continue;
      end if;
    end if;
    insert into reservations (id, account_id, key_id, request_id, amount, created_at, expires_at, instance_id)
      values (p_ids[i], p_accounts[i], p_keys[i], p_requests[i], p_amounts[i], p_created[i], p_expires[i], p_instances[i]);
    outcomes := outcomes || 'reserved'::text;
  end loop;
  return outcomes;
end $$`,
    )
    .execute(db);
  await sql.raw('drop function if exists switchyard_reserve(text, text, text, text, bigint, text, text, text)').execute(db);
}

/** Back to the functions as the earlier migrations made them. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await reserveFunction.up(db);
  await reserveManyFunction.up(db);
}
