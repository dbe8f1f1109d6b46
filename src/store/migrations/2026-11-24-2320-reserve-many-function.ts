import { sql, type Kysely } from 'kysely';
import { isPostgres } from './is-postgres.js';

/**
 * Group commit for PostgreSQL reservations: `switchyard_reserve_many` takes the reservations
 * that queued while the previous call was in flight, as parallel arrays, and decides them in
 * order in one transaction — each against what the ones before it took, with exactly the checks
 * of `switchyard_reserve` (neither the balance nor a key's limit can go below zero). One call,
 * one commit and one hold of a hot account's row lock per batch instead of one per request.
 * Its commit is asynchronous for the reason given in 2026-11-22-2310-reserve-function.
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
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(await isPostgres(db))) return;
  await sql.raw('drop function if exists switchyard_reserve_many(text[], text[], text[], text[], bigint[], text[], text[], text[])').execute(db);
}
