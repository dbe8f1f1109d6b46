import { sql, type Kysely } from 'kysely';
import { isPostgres } from './is-postgres.js';
import * as keyLimitReset from './2026-12-07-1940-key-limit-reset.js';

/**
 * Issue 49: a member's own limit, counting what the member's keys spend (contract §8).
 *
 * - `memberships` gains `spend_limit` (null: none), `limit_reset`, `period_start`, `period_usage`
 *   and `reserved`, the same columns and the same free-funds rule as a key's
 *   (`spend_limit - period_usage - reserved`, `billing/db/free-funds.ts`).
 * - A trigger on `api_keys` mirrors, in the same statement, every change of a key's `reserved`
 *   and `usage` onto the membership of the key's creator (`created_by_user_id`): every path that
 *   reserves, leases, releases or charges a key — the reserve function, the lease statements, both
 *   books writers, the sweep — keeps the member's totals exact without a line of its own, and a
 *   key without a creator skips it in the trigger's `when`. The membership row is locked after
 *   the key's, and every writer of a key has locked the key's account first, so two writers of
 *   one member are already serialized by the account and cannot deadlock on it.
 * - Existing memberships start from their keys' totals: `period_usage` the lifetime usage (no
 *   reset yet), `reserved` what their keys hold now.
 * - `switchyard_reserve_many` gains the member check after the key's: the key's reservation is
 *   added (the trigger adds it to the member), and where the member's limit would go below zero
 *   both are undone and the outcome is `member_limit`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('memberships').addColumn('spend_limit', 'bigint').execute();
  await db.schema.alterTable('memberships').addColumn('limit_reset', 'text').execute();
  await db.schema.alterTable('memberships').addColumn('period_start', 'text').execute();
  await db.schema.alterTable('memberships').addColumn('period_usage', 'bigint', (column) => column.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('memberships').addColumn('reserved', 'bigint', (column) => column.notNull().defaultTo(0)).execute();
  await sql`update memberships set
              period_usage = (select coalesce(sum(usage), 0) from api_keys where api_keys.account_id = memberships.account_id and api_keys.created_by_user_id = memberships.user_id),
              reserved = (select coalesce(sum(reserved), 0) from api_keys where api_keys.account_id = memberships.account_id and api_keys.created_by_user_id = memberships.user_id)`.execute(db);
  await db.schema.createIndex('memberships_limit_reset_idx').on('memberships').columns(['limit_reset', 'period_start']).execute();
  const mirror = `update memberships set reserved = reserved + (new.reserved - old.reserved), period_usage = period_usage + (new.usage - old.usage)
      where account_id = new.account_id and user_id = new.created_by_user_id`;
  if (!(await isPostgres(db))) {
    await sql
      .raw(
        `create trigger switchyard_member_totals after update of reserved, usage on api_keys for each row
  when new.created_by_user_id is not null and (new.reserved <> old.reserved or new.usage <> old.usage)
  begin ${mirror}; end`,
      )
      .execute(db);
    return;
  }
  await sql.raw(`create or replace function switchyard_member_totals() returns trigger language plpgsql as $$
begin
  ${mirror};
  return null;
end $$`).execute(db);
  await sql
    .raw(
      `create trigger switchyard_member_totals after update of reserved, usage on api_keys for each row
  when (new.created_by_user_id is not null and (new.reserved <> old.reserved or new.usage <> old.usage))
  execute function switchyard_member_totals()`,
    )
    .execute(db);
  await sql.raw(reserveManyText('spend_limit - period_usage - reserved')).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop trigger if exists switchyard_member_totals' + ((await isPostgres(db)) ? ' on api_keys' : '')).execute(db);
  if (await isPostgres(db)) {
    await sql.raw('drop function if exists switchyard_member_totals()').execute(db);
    await keyLimitReset.upReserveMany(db);
  }
  await db.schema.dropIndex('memberships_limit_reset_idx').execute();
  for (const column of ['reserved', 'period_usage', 'period_start', 'limit_reset', 'spend_limit']) await db.schema.alterTable('memberships').dropColumn(column).execute();
}

/** `switchyard_reserve_many` as 2026-12-07-1940 wrote it, with the member's check after the key's (`limitFree` is the rule of both). */
function reserveManyText(limitFree: string): string {
  return `create or replace function switchyard_reserve_many(p_ids text[], p_accounts text[], p_keys text[], p_requests text[], p_amounts bigint[], p_created text[], p_expires text[], p_instances text[])
returns text[] language plpgsql as $$
declare
  outcomes text[] := array[]::text[];
  i integer;
  v_member text;
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
      update api_keys set reserved = reserved + p_amounts[i] where id = p_keys[i] and (spend_limit is null or ${limitFree} >= p_amounts[i])
        returning created_by_user_id into v_member;
      if not found then
        update accounts set reserved = reserved - p_amounts[i] where id = p_accounts[i];
        outcomes := outcomes || 'key_limit'::text;
        continue;
      end if;
      -- The trigger added the amount to the member's reserved: what is left must not be below zero.
      if v_member is not null and exists (select 1 from memberships where account_id = p_accounts[i] and user_id = v_member and spend_limit is not null and ${limitFree} < 0) then
        update api_keys set reserved = reserved - p_amounts[i] where id = p_keys[i];
        update accounts set reserved = reserved - p_amounts[i] where id = p_accounts[i];
        outcomes := outcomes || 'member_limit'::text;
        continue;
      end if;
    end if;
    insert into reservations (id, account_id, key_id, request_id, amount, created_at, expires_at, instance_id)
      values (p_ids[i], p_accounts[i], p_keys[i], p_requests[i], p_amounts[i], p_created[i], p_expires[i], p_instances[i]);
    outcomes := outcomes || 'reserved'::text;
  end loop;
  return outcomes;
end $$`;
}
