import { sql, type Kysely } from 'kysely';
import { isPostgres } from './is-postgres.js';

/**
 * Issue 45: a key's limits changed or the key revoked is told to every instance on the
 * `switchyard_leases` channel (`billing/lease-signals.ts`), by the database in the transaction
 * of the change, so that each recalls the leases it sized under the old limit and drops the key
 * from its key cache, whichever path made the change (an API route on any instance, the admin
 * CLI). Only those columns fire it: the books' updates of `usage` and `reserved` never do. SQLite
 * is one process: the instance that makes a change recalls its leases itself.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(await isPostgres(db))) return;
  await sql
    .raw(
      `create or replace function switchyard_notify_key_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('switchyard_leases', 'key ' || new.id);
  return null;
end $$`,
    )
    .execute(db);
  await sql.raw('drop trigger if exists switchyard_key_change on api_keys').execute(db);
  await sql
    .raw(
      `create trigger switchyard_key_change
  after update of spend_limit, revoked_at, max_price_prompt, max_price_completion, model_max_prices, requests_per_minute on api_keys
  for each row
  when (old.spend_limit is distinct from new.spend_limit or old.revoked_at is distinct from new.revoked_at
        or old.max_price_prompt is distinct from new.max_price_prompt or old.max_price_completion is distinct from new.max_price_completion
        or old.model_max_prices is distinct from new.model_max_prices or old.requests_per_minute is distinct from new.requests_per_minute)
  execute function switchyard_notify_key_change()`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(await isPostgres(db))) return;
  await sql.raw('drop trigger if exists switchyard_key_change on api_keys').execute(db);
  await sql.raw('drop function if exists switchyard_notify_key_change()').execute(db);
}
