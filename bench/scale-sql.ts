/**
 * The scale benchmark's seed rows as SQL: every row is computed by the database from its number
 * `i` (a recursive CTE on SQLite, `generate_series` on PostgreSQL), so seeding 10M rows sends a
 * few hundred statements rather than 10M rows of parameters. The same expressions serve both
 * stores; only the series, and turning milliseconds into ISO text, differ.
 */
export type ScaleDialect = 'sqlite' | 'postgres';

/** How many rows of each kind (the defaults are the issue's scale). */
export interface ScaleShape {
  accounts: number;
  keys: number;
  models: number;
  days: number;
  requestRows: number;
  /** Uploaded files of the big account, and as many batches: a quarter OpenAI's, the rest Anthropic Message Batches. */
  batchRows: number;
}

/** The ids of the account and keys the CLI made (the seeded rows are spread over them as well). */
export interface ScaleAnchor {
  accountId: string;
  managementKeyId: string;
  ordinaryKeyId: string;
  /** The seed's "now": the last day of usage, the newest request and the newest account. */
  nowMs: number;
}

const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const dayMs = 86_400_000;
/** Accounts were made over three years; keys an hour apart before the first request. */
const accountSpanMs = 3 * 365 * dayMs;

const firstNames = ['ada', 'alan', 'grace', 'linus', 'barbara', 'ken', 'dennis', 'margaret', 'edsger', 'donald', 'frances', 'john', 'radia', 'tim', 'vint', 'sophie'];
const lastNames = ['lovelace', 'turing', 'hopper', 'torvalds', 'liskov', 'thompson', 'ritchie', 'hamilton', 'dijkstra', 'knuth', 'allen', 'backus', 'perlman', 'berners', 'cerf', 'wilson'];
const companyWords = ['Acme', 'Northwind', 'Globex', 'Initech', 'Umbrella', 'Stark', 'Wayne', 'Hooli', 'Vandelay', 'Tyrell', 'Cyberdyne', 'Soylent', 'Aperture', 'Massive', 'Oscorp', 'Wonka'];
/** "labs" ends one company name in four: the common word of the search (about 150,000 of 1M). */
const companySuffixes = ['Labs', 'Inc', 'Systems', 'Analytics'];
/** The search for a name no account has. */
export const absentName = 'zyxwv-no-such-account';
export const commonWord = 'labs';

/** Twenty models over eight providers (a model's rows always name the same provider). */
const routes: Array<[model: string, provider: string]> = [
  ['openai/gpt-4o-mini', 'openai'], ['openai/gpt-4o', 'openai'], ['openai/gpt-4.1', 'openai'], ['openai/o3-mini', 'openai'],
  ['anthropic/claude-sonnet-4', 'anthropic'], ['anthropic/claude-haiku-3.5', 'anthropic'], ['anthropic/claude-opus-4', 'anthropic'],
  ['google/gemini-2.0-flash', 'gemini'], ['google/gemini-2.5-pro', 'gemini'], ['google/gemini-2.5-flash', 'gemini'],
  ['meta-llama/llama-3.3-70b', 'groq'], ['meta-llama/llama-3.1-8b', 'groq'], ['meta-llama/llama-4-scout', 'together'],
  ['deepseek/deepseek-chat', 'deepseek'], ['deepseek/deepseek-reasoner', 'deepseek'], ['mistral/mistral-small', 'mistral'],
  ['mistral/mistral-large', 'mistral'], ['qwen/qwen-2.5-72b', 'together'], ['x-ai/grok-3', 'xai'], ['x-ai/grok-3-mini', 'xai'],
];
export const maxModels = routes.length;

/** The model (and its provider) at index `j`, as the seed names it. */
export function modelAt(j: number): { model: string; provider: string } {
  const [model, provider] = routes[j % routes.length];
  return { model, provider };
}

/** A time-ordered id as the product writes them (core/ids.ts's layout), its random part the row's number. */
export function benchId(prefix: string, ms: number, sequence: number): string {
  return `${prefix}_${encode(ms, 10)}000000000${encode(sequence, 7)}`;
}

function encode(value: number, width: number): string {
  let text = '';
  let rest = value;
  for (let index = 0; index < width; index += 1) {
    text = alphabet[rest % 32] + text;
    rest = Math.floor(rest / 32);
  }
  return text;
}

/** `benchId` in SQL: both stores have `substr`, `>>`, `&` and `||`. */
function idSql(prefix: string, ms: string, sequence: string): string {
  const digits = (value: string, width: number) =>
    Array.from({ length: width }, (_, index) => `substr('${alphabet}', cast(((${value}) >> ${5 * (width - 1 - index)}) & 31 as integer) + 1, 1)`).join(' || ');
  return `'${prefix}_' || ${digits(ms, 10)} || '000000000' || ${digits(sequence, 7)}`;
}

/** `case <index> when 0 then 'a' … end`: picks a string by a computed index. */
function pick(index: string, values: readonly string[]): string {
  return `case ${index} ${values.map((value, position) => `when ${position} then '${value}'`).join(' ')} end`;
}

function isoTimeSql(dialect: ScaleDialect, ms: string): string {
  return dialect === 'sqlite'
    ? `strftime('%Y-%m-%dT%H:%M:%fZ', (${ms}) / 1000.0, 'unixepoch')`
    : `to_char(to_timestamp((${ms}) / 1000.0) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

function daySql(dialect: ScaleDialect, ms: string): string {
  return dialect === 'sqlite' ? `strftime('%Y-%m-%d', (${ms}) / 1000, 'unixepoch')` : `to_char(to_timestamp((${ms}) / 1000) at time zone 'UTC', 'YYYY-MM-DD')`;
}

/** Rows `from`..`to` (inclusive) as a FROM item yielding the column `i`. */
function seriesSql(dialect: ScaleDialect, from: number, to: number): string {
  return dialect === 'sqlite'
    ? `(with recursive s(i) as (select ${from} union all select i + 1 from s where i < ${to}) select i from s) as s`
    : `generate_series(${from}::bigint, ${to}::bigint) as s(i)`;
}

/** The start of the UTC day of `ms`. */
export function startOfDay(ms: number): number {
  return Math.floor(ms / dayMs) * dayMs;
}

/** Accounts `from`..`to`: a tenth named by an e-mail address, three tenths by a person, the rest companies. */
export function insertAccountsSql(dialect: ScaleDialect, shape: ScaleShape, anchor: ScaleAnchor, from: number, to: number): string {
  const step = Math.max(1, Math.floor(accountSpanMs / shape.accounts));
  const ms = `(${anchor.nowMs - accountSpanMs} + i * ${step})`;
  const first = pick('(i / 10) % 16', firstNames);
  const last = pick('(i / 160) % 16', lastNames);
  const capital = (values: string[]) => values.map((value) => value[0].toUpperCase() + value.slice(1));
  const name = `case when i % 10 = 0 then ${first} || '.' || ${last} || '.' || i || '@example.com'
    when i % 10 < 4 then ${pick('(i / 10) % 16', capital(firstNames))} || ' ' || ${pick('(i / 160) % 16', capital(lastNames))}
    else ${pick('(i / 7) % 16', companyWords)} || ' ' || ${pick('(i / 3) % 4', companySuffixes)} end`;
  return `insert into accounts (id, name, created_at, total_credits, total_usage, reserved)
    select ${idSql('acc', ms, 'i')}, ${name}, ${isoTimeSql(dialect, ms)}, 10000000000, 0, 0 from ${seriesSql(dialect, from, to)}`;
}

/** Key number `k` of the big account; 0 and 1 are the two the CLI made. */
function keyIdSql(anchor: ScaleAnchor, k: string, keysBaseMs: number): string {
  return `case ${k} when 0 then '${anchor.ordinaryKeyId}' when 1 then '${anchor.managementKeyId}' else ${idSql('key', `(${keysBaseMs} + ${k} * 1000)`, k)} end`;
}

function keysBaseMs(shape: ScaleShape, anchor: ScaleAnchor): number {
  return startOfDay(anchor.nowMs) - shape.days * dayMs - dayMs;
}

/** The big account's other keys (2 … keys − 1); hashes that no secret can have. */
export function insertKeysSql(dialect: ScaleDialect, shape: ScaleShape, anchor: ScaleAnchor): string {
  const base = keysBaseMs(shape, anchor);
  return `insert into api_keys (id, account_id, name, label, hash, management, created_at, usage, reserved)
    select ${keyIdSql(anchor, 'i', base)}, '${anchor.accountId}', 'worker ' || i, 'sy_ben…' || i, 'bench-scale-' || i, 0, ${isoTimeSql(dialect, `(${base} + i * 1000)`)}, 0, 0
    from ${seriesSql(dialect, 2, shape.keys - 1)}`;
}

/**
 * Daily rollups, rows `from`..`to` of days × keys × models (every key uses every model every day:
 * the worst case for a report that sums the detail), in primary-key order. Written where an
 * upgrade leaves the rollups that the usage summaries do not hold yet (`usage_rollups_pending`,
 * migration 2026-12-07-1300): the product's own backfill then moves them into the rollups and
 * the summaries (`switchyard admin backfill-usage`).
 */
export function insertRollupsSql(dialect: ScaleDialect, shape: ScaleShape, anchor: ScaleAnchor, from: number, to: number): string {
  const perDay = shape.keys * shape.models;
  const firstDayMs = startOfDay(anchor.nowMs) - (shape.days - 1) * dayMs;
  const model = `(i % ${shape.models})`;
  return `insert into usage_rollups_pending (account_id, day, key_id, model, provider, requests, prompt_tokens, completion_tokens, cost)
    select '${anchor.accountId}', ${daySql(dialect, `(${firstDayMs} + (i / ${perDay}) * ${dayMs})`)}, ${keyIdSql(anchor, `((i / ${shape.models}) % ${shape.keys})`, keysBaseMs(shape, anchor))},
      ${pick(model, routes.slice(0, shape.models).map(([name]) => name))}, ${pick(model, routes.slice(0, shape.models).map(([, provider]) => provider))},
      1 + i % 5, 100 + i % 3000, 10 + i % 900, 1000 + (i % 7919) * 1000
    from ${seriesSql(dialect, from, to)}`;
}

/**
 * Request log rows `from`..`to`, evenly over the seeded days up to now, all the big account's,
 * spread over its keys and models; 1 % refused, a tenth with an end user.
 */
export function insertRequestsSql(dialect: ScaleDialect, shape: ScaleShape, anchor: ScaleAnchor, from: number, to: number): string {
  const spanMs = shape.days * dayMs;
  const step = spanMs / shape.requestRows;
  const ms = `(${anchor.nowMs - spanMs} + cast(i * ${step} as bigint))`;
  const model = `((i * 7 + i / 13) % ${shape.models})`;
  const status = `case when i % 100 < 95 then 'completed' when i % 100 < 97 then 'failed' when i % 100 < 99 then 'aborted' else 'refused' end`;
  return `insert into requests (id, account_id, key_id, model, provider, endpoint, streamed, status, error_code, latency_ms,
      prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, cost, estimated, created_at, end_user)
    select ${idSql('req', ms, 'i')}, '${anchor.accountId}', ${keyIdSql(anchor, `((i * 7919) % ${shape.keys})`, keysBaseMs(shape, anchor))},
      ${pick(model, routes.slice(0, shape.models).map(([name]) => name))},
      case when i % 100 = 99 then null else ${pick(model, routes.slice(0, shape.models).map(([, provider]) => provider))} end,
      ${pick('i % 4', ['/chat/completions', '/chat/completions', '/responses', '/messages'])}, i % 2, ${status},
      case when i % 100 < 95 then null when i % 100 < 97 then 'upstream_error' when i % 100 < 99 then 'client_closed' else 'insufficient_balance' end,
      80 + i % 4000, 50 + i % 4000, 10 + i % 900, 0, 0, 1000 + (i % 7919) * 1000, 0, ${isoTimeSql(dialect, ms)},
      case when i % 10 = 0 then 'user-' || (i % 1000) else null end
    from ${seriesSql(dialect, from, to)}`;
}

/** Files and batches are a minute apart, the newest at the seed's "now". */
const batchStepMs = 60_000;

/** The id of seeded file or batch `i` (0 the oldest): `file`, `batch` (i % 4 = 0) or `msgbatch` (the rest). */
export function batchRowId(kind: 'file' | 'batch', shape: ScaleShape, anchor: ScaleAnchor, i: number): string {
  const ms = anchor.nowMs - (shape.batchRows - i) * batchStepMs;
  return benchId(kind === 'file' ? 'file' : i % 4 === 0 ? 'batch' : 'msgbatch', ms, i);
}

/** Files `from`..`to` of the big account: batch input files, their bytes nowhere (the lists read rows only). */
export function insertFilesSql(dialect: ScaleDialect, shape: ScaleShape, anchor: ScaleAnchor, from: number, to: number): string {
  const ms = `(${anchor.nowMs - shape.batchRows * batchStepMs} + i * ${batchStepMs})`;
  return `insert into files (id, account_id, purpose, filename, bytes, line_count, storage_key, created_at)
    select ${idSql('file', ms, 'i')}, '${anchor.accountId}', 'batch', 'input-' || i || '.jsonl', 1000 + i % 5000, 10 + i % 90, 'bench/' || i, ${isoTimeSql(dialect, ms)}
    from ${seriesSql(dialect, from, to)}`;
}

/** Batches `from`..`to` of the big account, completed: every fourth OpenAI's (`batch_…`), the others Message Batches (`msgbatch_…`). */
export function insertBatchesSql(dialect: ScaleDialect, shape: ScaleShape, anchor: ScaleAnchor, from: number, to: number): string {
  const ms = `(${anchor.nowMs - shape.batchRows * batchStepMs} + i * ${batchStepMs})`;
  const openai = 'i % 4 = 0';
  const id = `case when ${openai} then ${idSql('batch', ms, 'i')} else ${idSql('msgbatch', ms, 'i')} end`;
  const at = isoTimeSql(dialect, ms);
  return `insert into batches (id, account_id, key_id, endpoint, input_file_id, completion_window, kind, status, total, completed, failed, created_at, expires_at, in_progress_at, finalizing_at, completed_at)
    select ${id}, '${anchor.accountId}', '${anchor.managementKeyId}', case when ${openai} then '/v1/chat/completions' else '/v1/messages' end,
      ${idSql('file', ms, 'i')}, '24h', case when ${openai} then 'batch' else 'message_batch' end, 'completed', 10, 9, 1, ${at}, ${at}, ${at}, ${at}, ${at}
    from ${seriesSql(dialect, from, to)}`;
}
