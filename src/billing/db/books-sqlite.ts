import type SqliteDatabase from 'better-sqlite3';
import type { FundsChange, LedgerEntryRow, TakenRow } from './book-rows.js';
import { accountFreeSql, keyFreeSql } from './free-funds.js';
import type { UsageRollupDelta } from './usage-rollups.js';
import type { UsageSummaryDelta } from './summarize-usage.js';
import type { RequestRow } from './requests.js';

/**
 * The statements of the group-committed books on SQLite, prepared once per database, for the
 * synchronous transaction of `billing/write-books-sqlite.ts` (which decides what they write).
 */
export interface BooksStatements {
  /** Answers whether the row was new. */
  insertRequestRow(row: RequestRow): boolean;
  deleteReservation(id: string): TakenRow | undefined;
  /** Takes `amount` out of a lease row that holds at least that much. */
  shrinkReservation(id: string, amount: bigint): TakenRow | undefined;
  accountFree(id: string): bigint | undefined;
  /** Undefined for a key without a limit. */
  keyFree(id: string): bigint | undefined;
  changeAccount(change: FundsChange): void;
  changeKey(change: FundsChange): void;
  insertLedgerEntry(entry: LedgerEntryRow): void;
  setRequestCost(id: string, cost: bigint): void;
  addRollup(delta: UsageRollupDelta): void;
  addSummary(delta: UsageSummaryDelta): void;
}

const requestColumns = [
  'id', 'account_id', 'key_id', 'model', 'provider', 'endpoint', 'streamed', 'status', 'error_code', 'latency_ms', 'prompt_tokens', 'completion_tokens',
  'cached_tokens', 'reasoning_tokens', 'cost', 'estimated', 'created_at', 'end_user', 'omitted', 'web_search_requests', 'tool_cost',
  'error_message', 'batch_id', 'cache_hit',
] as const satisfies ReadonlyArray<keyof RequestRow>;
// Every column `toRequestRow` writes is in the list: one added there and not here does not compile.
const everyColumn: Exclude<keyof RequestRow, (typeof requestColumns)[number]> extends never ? true : never = true;
void everyColumn;

const cache = new WeakMap<SqliteDatabase.Database, BooksStatements>();

export function prepareBooksStatements(database: SqliteDatabase.Database): BooksStatements {
  const cached = cache.get(database);
  if (cached) return cached;
  // One statement, the row's columns in a fixed order, bound by position: no SQL text built per row.
  const insertRow = database.prepare(`insert into requests (${requestColumns.join(', ')}) values (${requestColumns.map(() => '?').join(', ')}) on conflict (id) do nothing`);
  const takeReservation = database.prepare('delete from reservations where id = ? returning id, account_id, key_id, amount');
  const shrink = database.prepare('update reservations set amount = amount - ? where id = ? and amount >= ? returning id, account_id, key_id, amount');
  const accountFree = database.prepare(`select ${accountFreeSql} as free from accounts where id = ?`);
  const keyFree = database.prepare(`select ${keyFreeSql} as free from api_keys where id = ? and spend_limit is not null`);
  const updateAccount = database.prepare('update accounts set reserved = reserved - ?, total_usage = total_usage + ? where id = ?');
  const updateKey = database.prepare('update api_keys set reserved = reserved - ?, usage = usage + ?, period_usage = period_usage + ? where id = ?');
  const insertEntry = database.prepare(
    'insert into ledger_entries (id, account_id, key_id, kind, amount, request_id, note, created_at) values (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const setCost = database.prepare('update requests set cost = ? where id = ?');
  const addRollup = database.prepare(
    `insert into usage_rollups (account_id, day, key_id, model, provider, requests, prompt_tokens, completion_tokens, cost) values (?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (account_id, day, key_id, model, provider) do update set requests = usage_rollups.requests + excluded.requests,
       prompt_tokens = usage_rollups.prompt_tokens + excluded.prompt_tokens, completion_tokens = usage_rollups.completion_tokens + excluded.completion_tokens,
       cost = usage_rollups.cost + excluded.cost`,
  );
  const addSummary = database.prepare(
    `insert into usage_summaries (account_id, dimension, period, value, requests, prompt_tokens, completion_tokens, cost) values (?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (account_id, dimension, period, value) do update set requests = usage_summaries.requests + excluded.requests,
       prompt_tokens = usage_summaries.prompt_tokens + excluded.prompt_tokens, completion_tokens = usage_summaries.completion_tokens + excluded.completion_tokens,
       cost = usage_summaries.cost + excluded.cost`,
  );
  const statements: BooksStatements = {
    insertRequestRow: (row) => insertRow.run(requestColumns.map((column) => row[column])).changes > 0,
    deleteReservation: (id) => takeReservation.get(id) as TakenRow | undefined,
    shrinkReservation: (id, amount) => shrink.get(amount, id, amount) as TakenRow | undefined,
    accountFree: (id) => (accountFree.get(id) as { free: bigint } | undefined)?.free,
    keyFree: (id) => (keyFree.get(id) as { free: bigint } | undefined)?.free,
    changeAccount: (change) => void updateAccount.run(change.released, change.charged, change.id),
    changeKey: (change) => void updateKey.run(change.released, change.charged, change.charged, change.id),
    insertLedgerEntry: (entry) => void insertEntry.run(entry.id, entry.account_id, entry.key_id, entry.kind, entry.amount, entry.request_id, entry.note, entry.created_at),
    setRequestCost: (id, cost) => void setCost.run(cost, id),
    addRollup: (delta) => void addRollup.run(delta.accountId, delta.day, delta.keyId, delta.model, delta.provider, delta.requests, delta.promptTokens, delta.completionTokens, delta.cost),
    addSummary: (delta) =>
      void addSummary.run(delta.accountId, delta.dimension, delta.period, delta.value, delta.requests, delta.promptTokens, delta.completionTokens, delta.cost),
  };
  cache.set(database, statements);
  return statements;
}
