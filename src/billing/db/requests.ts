import { sql, type Kysely, type Selectable } from 'kysely';
import type pg from 'pg';
import type { RequestLogErrorCode } from '../../errors/request-log-codes.js';
import type { Database, RequestsTable } from '../../store/database.js';
import { toBigInt, toBoolean, toNumber } from '../../store/convert.js';
import { idFloorAt, readIdTime } from '../../core/id-time.js';
import type { RequestRecord, RequestStatus } from '../request-record.js';

export interface RequestFilter {
  accountId: string;
  /** Ordinary keys see only their own requests. */
  keyId?: string;
  model?: string;
  provider?: string;
  status?: string;
  endUser?: string;
  /** Inclusive lower and exclusive upper id bounds (ids are time-ordered). */
  idFrom?: string;
  idBefore?: string;
}

// 22 parameters a row: 500 rows stay well under SQLite's 32,766 and PostgreSQL's 65,535.
const rowsPerStatement = 500;

/**
 * Inserts rows whose id is not there yet and returns the ids it inserted, so that a batch retried
 * after a commit whose answer was lost is counted once, not twice.
 */
export async function insertRequests(db: Kysely<Database>, records: readonly RequestRecord[]): Promise<string[]> {
  const inserted: string[] = [];
  for (let start = 0; start < records.length; start += rowsPerStatement) {
    const rows = await db
      .insertInto('requests')
      .values(records.slice(start, start + rowsPerStatement).map(toRequestRow))
      .onConflict((conflict) => conflict.column('id').doNothing())
      .returning('id')
      .execute();
    for (const row of rows) inserted.push(row.id);
  }
  return inserted;
}

export async function findRequest(db: Kysely<Database>, accountId: string, id: string, keyId?: string): Promise<RequestRecord | undefined> {
  let query = db.selectFrom('requests').selectAll().where('account_id', '=', accountId).where('id', '=', id);
  if (keyId !== undefined) query = query.where('key_id', '=', keyId);
  const row = await query.executeTakeFirst();
  return row ? toRecord(row) : undefined;
}

/**
 * Newest first; `cursor` is the last id of the previous page.
 *
 * `byDays` (the partitioned log on PostgreSQL, `request-log-partitions.ts`): the page is read
 * window after window of days going back from its upper bound — the day it starts in, then 1, 2,
 * 4, … days before — each query bounded by id so the planner keeps only those days' partitions,
 * until the page is full or the range is covered; the rest (older than ~a year and a half) in one
 * last query. One query over a year of partitions planned for its parameters plans every
 * partition for every page (~20 ms at 365 on a quiet machine, 150 ms and more on a loaded one),
 * where a page of recent rows needs one day. `byDays` is the newest id time to expect (now, by the
 * ids' clock).
 *
 * `?end_user=` is the sparse filter (most rows carry no end user, an end user may have a few
 * requests a month, or none): walking every window to fill or to find nothing plans every
 * partition once per page (p50 150–240 ms for an absent end user at 20M rows on the loaded
 * development machine). Given `pool`, what its first 8 days do not fill is read by one query over
 * the rest of the range (`readTail`): a named statement with a generic plan, planned once per
 * connection with every partition and pruned to the range at executor start (p50 ~15–40 ms
 * there). Its plan is each partition's end-user index (account, end user, id), which both finds
 * and orders the rows; should statistics ever make the planner prefer another, the tail's own
 * statement timeout (1 s) ends it and the windows read the rest as before.
 */
export async function listRequests(
  db: Kysely<Database>,
  filter: RequestFilter,
  page: { limit: number; cursor?: string },
  options: { byDays?: number; pool?: pg.Pool } = {},
): Promise<RequestRecord[]> {
  if (options.byDays === undefined) return (await requestsQuery(db, filter, page).execute()).map(toRecord);
  const upper = [page.cursor, filter.idBefore].reduce<string | undefined>((least, id) => (id !== undefined && (least === undefined || id < least) ? id : least), undefined);
  let floorMs = Math.floor(Math.min(options.byDays, upper === undefined ? options.byDays : (readIdTime(upper) ?? options.byDays)) / dayMs) * dayMs;
  const rows: Array<Selectable<RequestsTable>> = [];
  let before = upper;
  let tail = options.pool !== undefined && filter.endUser !== undefined;
  for (let span = 1; ; span *= 2) {
    if (tail && span > windowDaysBeforeTail) {
      const rest = await readTail(options.pool!, { ...filter, idBefore: before }, page.limit - rows.length);
      if (rest) return [...rows, ...rest].map(toRecord);
      tail = false;
    }
    const last = span > 512;
    const floor = last ? undefined : idFloorAt(requestIdPrefix, floorMs);
    const lowest = floor === undefined || (filter.idFrom !== undefined && filter.idFrom >= floor);
    const window = { ...filter, idFrom: lowest ? filter.idFrom : floor, idBefore: before };
    rows.push(...(await requestsQuery(db, window, { limit: page.limit - rows.length }).execute()));
    if (rows.length >= page.limit || lowest) return rows.map(toRecord);
    before = floor;
    floorMs -= span * dayMs;
  }
}

/** The windows read by day (1 + 1 + 2 + 4 days) before the rest of an end user's page is read by `readTail`. */
const windowDaysBeforeTail = 4;

/**
 * The query `requestsQuery` builds, as text with a name per set of conditions, for a named
 * statement: PostgreSQL keeps its plan per connection. Values in the order of the conditions.
 */
export function tailQuery(filter: RequestFilter, limit: number): { name: string; text: string; values: unknown[] } {
  const values: unknown[] = [filter.accountId];
  const conditions = ['account_id = $1'];
  let shape = '';
  const add = (tag: string, condition: string, value: unknown) => {
    values.push(value);
    conditions.push(`${condition} $${values.length}`);
    shape += tag;
  };
  if (filter.keyId !== undefined) add('k', 'key_id =', filter.keyId);
  if (filter.model !== undefined) add('m', 'model =', filter.model);
  if (filter.provider !== undefined) add('p', 'provider =', filter.provider);
  if (filter.status !== undefined) {
    add('s', 'status =', filter.status);
    // As `requestsQuery`: the partial index of the rare statuses states this condition.
    if (filter.status !== 'completed') {
      conditions.push("status <> 'completed'");
      shape += 'r';
    }
  }
  if (filter.endUser !== undefined) add('e', 'end_user =', filter.endUser);
  if (filter.idFrom !== undefined) add('f', 'id >=', filter.idFrom);
  if (filter.idBefore !== undefined) add('b', 'id <', filter.idBefore);
  values.push(limit);
  return { name: `switchyard_requests_tail_${shape || 'a'}`, text: `select * from requests where ${conditions.join(' and ')} order by id desc limit $${values.length}`, values };
}

/**
 * The tail's own statement timeout: a plan gone wrong ends here and the windows take over. Room
 * for the generic plan's planning, paid on a connection's first tail after each change of the
 * partitions (150–700 ms measured on the loaded 2-core machine, every partition planned once).
 */
const tailTimeoutMs = 1_000;

/** The rest of a page by one generic plan (`listRequests`); undefined when it ran out of time. */
async function readTail(pool: pg.Pool, filter: RequestFilter, limit: number): Promise<Array<Selectable<RequestsTable>> | undefined> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(`begin read only; set local plan_cache_mode = force_generic_plan; set local statement_timeout = ${tailTimeoutMs}`);
    const result = await client.query<Selectable<RequestsTable>>(tailQuery(filter, limit));
    await client.query('commit');
    return result.rows;
  } catch (error) {
    await client.query('rollback').catch((failure: Error) => (broken = failure));
    // 57014: query_canceled, the statement timeout.
    if ((error as { code?: string }).code === '57014' && !broken) return undefined;
    throw error;
  } finally {
    client.release(broken);
  }
}

const dayMs = 86_400_000;
/** Request ids' prefix (`createId('req')`): a day's first id is `idFloorAt` of it. */
const requestIdPrefix = 'req';

/** The query `listRequests` runs (exported for the test of which index it uses). */
export function requestsQuery(db: Kysely<Database>, filter: RequestFilter, page: { limit: number; cursor?: string }) {
  let query = db.selectFrom('requests').selectAll().where('account_id', '=', filter.accountId);
  if (filter.keyId !== undefined) query = query.where('key_id', '=', filter.keyId);
  if (filter.model !== undefined) query = query.where('model', '=', filter.model);
  if (filter.provider !== undefined) query = query.where('provider', '=', filter.provider);
  if (filter.status !== undefined) {
    query = query.where('status', '=', filter.status);
    // The condition of the partial index that serves the rare statuses, which SQLite uses only when the query states it.
    if (filter.status !== 'completed') query = query.where(sql.ref('status'), '<>', sql.lit('completed'));
  }
  if (filter.endUser !== undefined) query = query.where('end_user', '=', filter.endUser);
  if (filter.idFrom !== undefined) query = query.where('id', '>=', filter.idFrom);
  if (filter.idBefore !== undefined) query = query.where('id', '<', filter.idBefore);
  if (page.cursor !== undefined) query = query.where('id', '<', page.cursor);
  return query.orderBy('id', 'desc').limit(page.limit);
}

/** A request log row as stored, as `toRequestRow` builds it. */
export type RequestRow = ReturnType<typeof toRequestRow>;

/** The row as stored: column → value (bigints stay bigints; booleans are 0/1). */
export function toRequestRow(record: RequestRecord) {
  return rowOf(record, record.cost, record.toolCost ?? null);
}

/**
 * The row as a JSON parameter takes it (PostgreSQL's books batch, `json_populate_recordset`):
 * amounts as decimal strings, read at the column's type. JSON.stringify then needs no replacer,
 * which would call back into JavaScript for every field of every row.
 */
export function toRequestJsonRow(record: RequestRecord) {
  return rowOf(record, record.cost.toString(), record.toolCost == null ? null : record.toolCost.toString());
}

function rowOf<Amount>(record: RequestRecord, cost: Amount, toolCost: Amount | null) {
  return {
    id: record.id,
    account_id: record.accountId,
    key_id: record.keyId,
    model: record.model,
    provider: record.provider,
    endpoint: record.endpoint,
    streamed: record.streamed ? 1 : 0,
    status: record.status,
    error_code: record.errorCode,
    latency_ms: record.latencyMs,
    prompt_tokens: record.promptTokens,
    completion_tokens: record.completionTokens,
    cached_tokens: record.cachedTokens,
    reasoning_tokens: record.reasoningTokens,
    cost,
    estimated: record.estimated ? 1 : 0,
    created_at: record.createdAt,
    end_user: record.endUser ?? null,
    // A JSON array as text: a short list read back whole, never queried by element.
    omitted: record.omitted && record.omitted.length > 0 ? JSON.stringify(record.omitted) : null,
    web_search_requests: record.webSearchRequests ?? null,
    tool_cost: toolCost,
    error_message: record.errorMessage ?? null,
    batch_id: record.batchId ?? null,
    cache_hit: record.cacheHit === true ? 1 : 0,
  };
}

function toRecord(row: Selectable<RequestsTable>): RequestRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    keyId: row.key_id,
    model: row.model,
    provider: row.provider,
    endpoint: row.endpoint,
    streamed: toBoolean(row.streamed),
    status: row.status as RequestStatus,
    errorCode: row.error_code as RequestLogErrorCode | null,
    latencyMs: row.latency_ms === null ? null : toNumber(row.latency_ms),
    promptTokens: toNumber(row.prompt_tokens),
    completionTokens: toNumber(row.completion_tokens),
    cachedTokens: toNumber(row.cached_tokens),
    reasoningTokens: toNumber(row.reasoning_tokens),
    cost: toBigInt(row.cost),
    estimated: toBoolean(row.estimated),
    createdAt: row.created_at,
    endUser: row.end_user,
    omitted: row.omitted === null ? null : (JSON.parse(row.omitted) as string[]),
    webSearchRequests: row.web_search_requests === null || row.web_search_requests === undefined ? null : toNumber(row.web_search_requests),
    toolCost: row.tool_cost === null || row.tool_cost === undefined ? null : toBigInt(row.tool_cost),
    errorMessage: row.error_message ?? null,
    batchId: row.batch_id ?? null,
    cacheHit: row.cache_hit !== undefined && row.cache_hit !== null && Number(row.cache_hit) === 1,
  };
}

/**
 * Deletes up to `limit` of the oldest rows whose id is below `beforeId` (the retention on SQLite,
 * where there are no partitions to drop) and says how many: one short statement that reads the
 * primary key in order, so a batch costs its own rows whatever the log's size.
 */
export async function deleteRequestsBefore(db: Kysely<Database>, beforeId: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('requests')
    .where('id', 'in', (query) => query.selectFrom('requests').select('id').where('id', '<', beforeId).orderBy('id').limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
