import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Dialect } from '../create-store.js';
import type { Database } from '../database.js';
import { yieldToEventLoop } from '../run-in-batches.js';
import { estimateAccountsContaining, readNameStatistics } from './read-name-statistics.js';

/**
 * The operator's account search (docs/api-decisions.md, "Account search"), the same rule on both
 * stores: the id exactly, or the name matched with ASCII letters folded to lower case (A-Z only:
 * `É` and `é` are different letters on both stores, whose own case rules differ beyond ASCII):
 * - a query of 3 characters or more matches any part of the name, served by a trigram index
 *   (SQLite FTS5 `accounts_search`, PostgreSQL pg_trgm), the rule rechecked on every candidate;
 * - a shorter one, which no trigram can serve, matches the whole name, served by
 *   `accounts_name_idx` (folded name, id).
 * Newest first by id, `cursor` the last id of the previous page, as every list.
 */
export interface SearchOptions {
  limit: number;
  cursor?: string;
  /** Tests only: smaller than the defaults below, to cross the thresholds with few accounts. */
  candidateCap?: number;
  scanWindow?: number;
  rareTrigramAccounts?: number;
}

export async function searchAccountIds(db: Kysely<Database>, dialect: Dialect, search: string, options: SearchOptions): Promise<string[]> {
  const folded = foldAscii(search);
  const names = [...folded].length < 3 ? await listWholeNameMatches(db, dialect, folded, options) : await listPartMatches(db, dialect, folded, options);
  const byId = await db.selectFrom('accounts').select('id').where('id', '=', search).executeTakeFirst();
  if (!byId || names.includes(byId.id) || (options.cursor !== undefined && byId.id >= options.cursor)) return names;
  return [...names, byId.id].sort((a, b) => (a < b ? 1 : -1)).slice(0, options.limit);
}

/**
 * At most this many index candidates are read for one page (each a row to look up and sort);
 * past it the query matches at least one account in a thousand (at 1M accounts), and a scan by
 * id finds a page within a few windows (measured in docs/deployment.md, "Account search").
 */
const candidateCap = 1_000;
/** Ids one scan statement reads, so that no statement holds SQLite's thread long (issue 54). */
const scanWindow = 4_000;

type Condition = RawBuilder<SqlBool>;

function foldAscii(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/** The stored name folded as `foldAscii` folds the query: SQLite's lower() changes ASCII only. */
function foldedName(dialect: Dialect) {
  return dialect === 'postgres' ? sql<string>`translate(accounts.name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')` : sql<string>`lower(accounts.name)`;
}

async function listWholeNameMatches(db: Kysely<Database>, dialect: Dialect, folded: string, options: SearchOptions): Promise<string[]> {
  let query = db.selectFrom('accounts').select('id').where(foldedName(dialect), '=', folded);
  if (options.cursor !== undefined) query = query.where('id', '<', options.cursor);
  return (await query.orderBy('id', 'desc').limit(options.limit).execute()).map((row) => row.id);
}

async function listPartMatches(db: Kysely<Database>, dialect: Dialect, folded: string, options: SearchOptions): Promise<string[]> {
  const matches = sql<SqlBool>`${foldedName(dialect)} like ${likePattern(folded)} escape '\\'`;
  const lookup = dialect === 'sqlite' ? matches : await choosePostgresLookup(db, folded, options);
  if (lookup !== 'scan') {
    const page = await readIndexedPage(db, dialect, folded, lookup, options);
    if (page) return page;
  }
  return scanForMatches(db, dialect === 'postgres' ? scanCondition(folded) : matches, options);
}

/**
 * The rule as the windowed scan checks it on PostgreSQL: `lower()` under the "C" collation folds
 * A-Z and nothing else, as `translate` does, but in one pass over the bytes, where `translate`
 * looks every character up in its 26-letter lists: a page of `ada lovelace` (1,173 of 1M
 * accounts, 42,500 names read) took 192 ms of the server with `translate` and 18-22 ms with this,
 * on the same loaded machine. The indexes keep `translate` (their expression), which the scan
 * does not use.
 */
function scanCondition(folded: string): Condition {
  return sql<SqlBool>`strpos(lower(accounts.name collate "C"), ${folded}) > 0`;
}

/** `text` anywhere in a LIKE pattern, its `%`, `_` and `\` plain characters. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/**
 * A trigram's candidates are read in a few milliseconds while its posting list is at most this
 * long (docs/deployment.md, "Account search"); 2% of the accounts at 1M.
 */
const rareTrigramAccounts = 20_000;

/**
 * What pg_trgm is asked for a text. Its bitmap scan reads the posting list of every trigram of
 * the pattern in full, so an e-mail, whose `exa`, `com` or first name a tenth of the accounts
 * share, cost 100+ ms even when it matched one account. So the index is asked for the rare
 * trigrams of the text only, as PostgreSQL's own statistics of the names estimate them (ANALYZE's
 * sample, `read-name-statistics.ts`); every rare one, not only the rarest, because each narrows
 * the candidates whose rows must be read (two rare trigrams of `50001` left 120 rows to read,
 * three left one), and the rule is checked on those few candidates with
 * `strpos`, which no index serves, so the planner cannot add the common trigrams back. A text
 * whose every trigram is common and which the statistics say matches more accounts than a page
 * may read from the index goes straight to the windowed scan, without reading the posting lists
 * first. Without statistics (a table never analyzed) or without a trigram of ASCII letters and
 * digits (whose pg_trgm reading is the same in every locale), the whole pattern as before; a text
 * without three letters or digits in a row gives pg_trgm nothing to look up (its index would read
 * every row), and takes the windowed scan.
 */
async function choosePostgresLookup(db: Kysely<Database>, folded: string, options: SearchOptions): Promise<Condition | 'scan'> {
  if (!/[\p{L}\p{N}]{3}/u.test(folded)) return 'scan';
  const name = foldedName('postgres');
  const whole = sql<SqlBool>`${name} like ${likePattern(folded)} escape '\\'`;
  const pieces = new Set<string>();
  for (let at = 0; at + 3 <= folded.length; at += 1) if (/^[a-z0-9]{3}$/.test(folded.slice(at, at + 3))) pieces.add(folded.slice(at, at + 3));
  const statistics = pieces.size > 0 ? await readNameStatistics(db) : undefined;
  if (!statistics) return whole;
  const rare = [...pieces].filter((piece) => estimateAccountsContaining(statistics, piece) <= (options.rareTrigramAccounts ?? rareTrigramAccounts));
  if (rare.length === 0) return estimateAccountsContaining(statistics, folded) > (options.candidateCap ?? candidateCap) ? 'scan' : whole;
  const trigrams = rare.map((piece) => sql<SqlBool>`${name} like ${`%${piece}%`}`);
  return sql<SqlBool>`${sql.join(trigrams, sql` and `)} and strpos(${name}, ${folded}) > 0`;
}

/**
 * One statement: the candidates the trigram index offers (at most `cap + 1`, so the work is
 * bounded), and the page among them. On SQLite the FTS5 table offers rowids that the rule then
 * checks; on PostgreSQL `lookup` (see `choosePostgresLookup`) is both the index condition and
 * the rule, and the cursor bounds the candidates. Undefined when the index offers more than
 * `cap`: the query is too common for it.
 */
async function readIndexedPage(db: Kysely<Database>, dialect: Dialect, folded: string, lookup: Condition, options: SearchOptions): Promise<string[] | undefined> {
  const cap = options.candidateCap ?? candidateCap;
  const below = options.cursor === undefined ? sql`` : sql`and accounts.id < ${options.cursor}`;
  const candidates =
    dialect === 'sqlite'
      ? sql`select rowid as candidate from accounts_search where accounts_search match ${ftsPhrase(folded)} limit ${cap + 1}`
      : sql`select accounts.id as candidate from accounts where ${lookup} ${below} limit ${cap + 1}`;
  const page =
    dialect === 'sqlite'
      ? sql`select accounts.id from accounts where accounts.rowid in (select candidate from candidates) and ${lookup} ${below} order by accounts.id desc limit ${options.limit}`
      : sql`select candidate as id from candidates order by candidate desc limit ${options.limit}`;
  const result = await sql<{ offered: number | bigint | string; id: string | null }>`
    with candidates as materialized (${candidates}), offered as (select count(*) as n from candidates)
    select offered.n as offered, page.id from offered left join (${page}) as page on 1 = 1 order by page.id desc`.execute(db);
  if (Number(result.rows[0]?.offered ?? 0) > cap) return undefined;
  return result.rows.flatMap((row) => (row.id === null ? [] : [row.id]));
}

/** An FTS5 string (one phrase): the trigram tokenizer matches it anywhere in the name, folding case. */
function ftsPhrase(folded: string): string {
  return `"${folded.replace(/"/g, '""')}"`;
}

/**
 * A query so common that the index offers more candidates than a page needs (or one the index
 * cannot serve): walk the accounts newest first in windows of `scanWindow` ids, each window one
 * bounded statement, yielding between them, until the page is full.
 */
async function scanForMatches(db: Kysely<Database>, matches: Condition, options: SearchOptions): Promise<string[]> {
  const found: string[] = [];
  let upper = options.cursor;
  while (found.length < options.limit) {
    let window = db.selectFrom('accounts').select('id');
    if (upper !== undefined) window = window.where('id', '<', upper);
    const floor = await db
      .selectFrom(window.orderBy('id', 'desc').limit(options.scanWindow ?? scanWindow).as('window'))
      .select((eb) => eb.fn.min<string>('window.id').as('id'))
      .executeTakeFirst();
    if (!floor?.id) break;
    let page = db.selectFrom('accounts').select('id').where('id', '>=', floor.id).where(matches);
    if (upper !== undefined) page = page.where('id', '<', upper);
    const rows = await page.orderBy('id', 'desc').limit(options.limit - found.length).execute();
    found.push(...rows.map((row) => row.id));
    upper = floor.id;
    await yieldToEventLoop();
  }
  return found;
}
