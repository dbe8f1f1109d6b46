import type { Kysely } from 'kysely';
import type { Dialect } from '../create-store.js';
import type { Database } from '../database.js';
import { toBigInt } from '../convert.js';
import { searchAccountIds, type SearchOptions } from './search-accounts.js';

export interface AccountRecord {
  id: string;
  name: string;
  createdAt: string;
  totalCredits: bigint;
  totalUsage: bigint;
  reserved: bigint;
  messengerLinked: boolean;
}

export async function insertAccount(db: Kysely<Database>, account: { id: string; name: string; createdAt: string }): Promise<void> {
  await db
    .insertInto('accounts')
    .values({ id: account.id, name: account.name, created_at: account.createdAt, total_credits: 0n, total_usage: 0n, reserved: 0n })
    .execute();
}

export async function findAccount(db: Kysely<Database>, id: string): Promise<AccountRecord | undefined> {
  const row = await db
    .selectFrom('accounts')
    .leftJoin('messenger_links', 'messenger_links.account_id', 'accounts.id')
    .select(['accounts.id', 'accounts.name', 'accounts.created_at', 'accounts.total_credits', 'accounts.total_usage', 'accounts.reserved', 'messenger_links.account_id as linked'])
    .where('accounts.id', '=', id)
    .executeTakeFirst();
  return row && toAccountRow(row);
}

/**
 * Adds credits: the account total, then one ledger entry, in the caller's transaction. The
 * account row is locked first (the only row of the global lock order this touches), so the
 * transaction holds nothing while it waits for that lock.
 */
export async function creditAccount(
  db: Kysely<Database>,
  entry: { ledgerId: string; accountId: string; amount: bigint; note: string | null; createdAt: string },
): Promise<void> {
  await db
    .updateTable('accounts')
    .set((eb) => ({ total_credits: eb('total_credits', '+', entry.amount) }))
    .where('id', '=', entry.accountId)
    .execute();
  await db
    .insertInto('ledger_entries')
    .values({ id: entry.ledgerId, account_id: entry.accountId, key_id: null, kind: 'credit', amount: entry.amount, request_id: null, note: entry.note, created_at: entry.createdAt })
    .execute();
}

/**
 * Accounts newest first (ids grow with time), after `cursor` (an account id). `search` matches
 * the id exactly or the name by the rule of `searchAccountIds`, through an index on each store.
 */
export async function listAccounts(db: Kysely<Database>, dialect: Dialect, options: SearchOptions & { search?: string }): Promise<AccountRecord[]> {
  let query = db
    .selectFrom('accounts')
    .leftJoin('messenger_links', 'messenger_links.account_id', 'accounts.id')
    .select(['accounts.id', 'accounts.name', 'accounts.created_at', 'accounts.total_credits', 'accounts.total_usage', 'accounts.reserved', 'messenger_links.account_id as linked']);
  if (options.search) {
    const ids = await searchAccountIds(db, dialect, options.search, options);
    if (ids.length === 0) return [];
    query = query.where('accounts.id', 'in', ids);
  } else if (options.cursor) {
    query = query.where('accounts.id', '<', options.cursor);
  }
  const rows = await query.orderBy('accounts.id', 'desc').limit(options.limit).execute();
  return rows.map(toAccountRow);
}

interface AccountRow {
  id: string;
  name: string;
  created_at: string;
  total_credits: string | number | bigint;
  total_usage: string | number | bigint;
  reserved: string | number | bigint;
  linked: string | null;
}

function toAccountRow(row: AccountRow): AccountRecord {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    totalCredits: toBigInt(row.total_credits),
    totalUsage: toBigInt(row.total_usage),
    reserved: toBigInt(row.reserved),
    messengerLinked: row.linked !== null,
  };
}
