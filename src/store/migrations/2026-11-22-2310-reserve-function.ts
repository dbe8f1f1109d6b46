import { sql, type Kysely } from 'kysely';
import { isPostgres } from './is-postgres.js';

/**
 * The reservation as one server-side function on PostgreSQL, called in autocommit: one round
 * trip, and the account row is locked only for the statement and its commit, never across
 * client round trips. The key's check comes after the account's; when the key refuses, the
 * account's part is undone in the same statement (the same implicit transaction).
 *
 * `switchyard_release` ends a reservation without a charge, locking in the same order as every
 * other writer (reservation, account, key), so that it cannot deadlock with a settlement batch.
 *
 * The reservation's commit is asynchronous (`synchronous_commit = off` for this transaction only): the row
 * lock is released without waiting for the WAL flush, which is what lets one hot account take
 * thousands of reservations a second. A database crash may forget the last instants of
 * reservations; their requests then settle without a reservation, which charges the actual
 * cost from the funds directly (the fencing path), so no charge is lost. Every settlement batch
 * commits synchronously and so makes all earlier reservations durable too. SQLite has no
 * functions of this kind: it runs the same steps as prepared statements in one transaction.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(await isPostgres(db))) return;
  await sql
    .raw(
      `create or replace function switchyard_reserve(p_id text, p_account text, p_key text, p_request text, p_amount bigint, p_created text, p_expires text, p_instance text)
returns text language plpgsql as $$
begin
  perform set_config('synchronous_commit', 'off', true);
  update accounts set reserved = reserved + p_amount where id = p_account and total_credits - total_usage - reserved >= p_amount;
  if not found then return 'insufficient_balance'; end if;
  if p_key is not null then
    update api_keys set reserved = reserved + p_amount where id = p_key and (spend_limit is null or spend_limit - usage - reserved >= p_amount);
    if not found then
      update accounts set reserved = reserved - p_amount where id = p_account;
      return 'key_limit';
    end if;
  end if;
  insert into reservations (id, account_id, key_id, request_id, amount, created_at, expires_at, instance_id)
    values (p_id, p_account, p_key, p_request, p_amount, p_created, p_expires, p_instance);
  return 'reserved';
end $$`,
    )
    .execute(db);
  // The release in the same lock order as every other writer: reservation, account, key.
  await sql
    .raw(
      `create or replace function switchyard_release(p_id text) returns bigint language plpgsql as $$
declare
  ended reservations%rowtype;
begin
  delete from reservations where id = p_id returning * into ended;
  if not found then return null; end if;
  update accounts set reserved = reserved - ended.amount where id = ended.account_id;
  if ended.key_id is not null then
    update api_keys set reserved = reserved - ended.amount where id = ended.key_id;
  end if;
  return ended.amount;
end $$`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(await isPostgres(db))) return;
  await sql.raw('drop function if exists switchyard_reserve(text, text, text, text, bigint, text, text, text)').execute(db);
  await sql.raw('drop function if exists switchyard_release(text)').execute(db);
}
