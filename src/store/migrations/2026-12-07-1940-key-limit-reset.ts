import { sql, type Kysely } from 'kysely';
import { isPostgres } from './is-postgres.js';
import * as orderedReserveMany from './2026-11-25-1900-ordered-reserve-many.js';
import * as keyChangeSignal from './2026-12-07-1330-key-change-signal.js';

/**
 * Issue 49: key limits that reset daily, weekly or monthly (contract §8).
 *
 * - `limit_reset` (null: a lifetime limit) and the period the key's limit counts in:
 *   `period_start` (ISO 8601, null without a reset) and `period_usage`, what was charged since
 *   then. A key without a reset never rolls over, so its `period_usage` is its lifetime `usage`:
 *   the key's free funds are `spend_limit - period_usage - reserved` for every key, one rule. The
 *   books add each charge to `usage` and `period_usage` in the same update; the roll-over (zero,
 *   new start) is one statement per period boundary per instance, found by
 *   `(limit_reset, period_start)`.
 * - `switchyard_reserve_many`, PostgreSQL's reserve check, is replaced with the new key text
 *   (`billing/db/free-funds.ts`); otherwise unchanged from 2026-11-25-1900.
 * - The key-change notification (2026-12-07-1330) fires on `limit_reset` too: a key switched to a
 *   lifetime limit may have less free than the leases other instances hold of it.
 *
 * Portable DDL; the function and trigger are PostgreSQL's only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('limit_reset', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('period_start', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('period_usage', 'bigint', (column) => column.notNull().defaultTo(0)).execute();
  await sql`update api_keys set period_usage = usage`.execute(db);
  await db.schema.createIndex('api_keys_limit_reset_idx').on('api_keys').columns(['limit_reset', 'period_start']).execute();
  if (!(await isPostgres(db))) return;
  await sql.raw(reserveManyText('spend_limit - period_usage - reserved')).execute(db);
  await sql.raw('drop trigger if exists switchyard_key_change on api_keys').execute(db);
  await sql
    .raw(
      `create trigger switchyard_key_change
  after update of spend_limit, revoked_at, max_price_prompt, max_price_completion, model_max_prices, requests_per_minute, limit_reset on api_keys
  for each row
  when (old.spend_limit is distinct from new.spend_limit or old.revoked_at is distinct from new.revoked_at
        or old.max_price_prompt is distinct from new.max_price_prompt or old.max_price_completion is distinct from new.max_price_completion
        or old.model_max_prices is distinct from new.model_max_prices or old.requests_per_minute is distinct from new.requests_per_minute
        or old.limit_reset is distinct from new.limit_reset)
  execute function switchyard_notify_key_change()`,
    )
    .execute(db);
}

/** This migration's `switchyard_reserve_many`, which the next one's `down` puts back. */
export async function upReserveMany(db: Kysely<unknown>): Promise<void> {
  await sql.raw(reserveManyText('spend_limit - period_usage - reserved')).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (await isPostgres(db)) {
    await orderedReserveMany.up(db);
    await keyChangeSignal.up(db);
  }
  await db.schema.dropIndex('api_keys_limit_reset_idx').execute();
  await db.schema.alterTable('api_keys').dropColumn('period_usage').execute();
  await db.schema.alterTable('api_keys').dropColumn('period_start').execute();
  await db.schema.alterTable('api_keys').dropColumn('limit_reset').execute();
}

/** `switchyard_reserve_many` as 2026-11-25-1900 wrote it, with the key's free funds spelled `keyFree`. */
function reserveManyText(keyFree: string): string {
  return `create or replace function switchyard_reserve_many(p_ids text[], p_accounts text[], p_keys text[], p_requests text[], p_amounts bigint[], p_created text[], p_expires text[], p_instances text[])
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
      update api_keys set reserved = reserved + p_amounts[i] where id = p_keys[i] and (spend_limit is null or ${keyFree} >= p_amounts[i]);
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
end $$`;
}
