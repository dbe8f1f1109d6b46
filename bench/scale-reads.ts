import { absentName, commonWord, modelAt, startOfDay } from './scale-sql.js';
import type { ScaleRead } from './time-scale-reads.js';

/** What the reads need to know of the seeded database, and the answers they must give. */
export interface ScaleFacts {
  accountId: string;
  ordinaryKeyId: string;
  /** An account in the middle of the table, found by its e-mail name and by its id. */
  middleAccount: { id: string; name: string };
  /** A request of the log (for the read by id). */
  requestId: string;
  /** Σ requests of the usage rollups over the year and over the default 30 days: all keys, and the ordinary key's. */
  expectedRequests: { year: number; days30: number; yearOrdinary: number; days30Ordinary: number };
  nowMs: number;
  /** The seed's size (a page walk or a later page needs that many rows). */
  accounts: number;
  keys: number;
  models: number;
  requestRows: number;
  /** Seeded files, and batches (a quarter OpenAI's, the rest Message Batches). */
  batchRows: number;
  /** A file, an OpenAI batch and a Message Batch in the middle of the seeded ones: the cursor of a later page. */
  middleFileId: string;
  middleBatchId: string;
  middleMessageBatchId: string;
}

const dayMs = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface Body {
  data: unknown;
  next_cursor?: string | null;
}

const listOf = (body: Body) => (Array.isArray(body.data) ? (body.data as Array<Record<string, unknown>>) : []);
/** How many pages to skip for "a later page" of a list of `rows` (at most `cap`; the last page may be short). */
const laterPage = (rows: number, cap: number) => Math.max(0, Math.min(cap, Math.floor(rows / 50) - 2));
const nonEmpty = (body: Body) => (listOf(body).length > 0 ? null : 'an empty page');
const fullPage = (size: number) => (body: Body) => (listOf(body).length === size ? null : `${listOf(body).length} rows, not a full page of ${size}`);
const usageTotal = (expected: number) => (body: Body) => {
  const requests = (body.data as { total?: { requests?: number } }).total?.requests;
  return requests === expected ? null : `total.requests ${requests}, the seeded rollups hold ${expected} (a summary the seed does not fill?)`;
};

/**
 * Every list and report that grows, as the API serves it: usage (year and default 30 days, by
 * each kind of caller), the operator's account search and list, key lists, the request log
 * with each filter, and the transactions list. The usage years end today by the server's clock; the checks are against the
 * rollups as seeded, summed by the benchmark in SQL.
 */
export function listScaleReads(facts: ScaleFacts): ScaleRead[] {
  const today = startOfDay(Date.now());
  const year = `from=${day(today - 364 * dayMs)}&to=${day(today)}`;
  const admin = `/v1/admin/accounts`;
  const { expectedRequests: expected } = facts;
  const middleEmail = facts.middleAccount.name;
  const keyPage = laterPage(facts.keys, 9);
  // "labs" ends about 15 % of the names (scale-sql.ts).
  const searchPage = laterPage(facts.accounts * 0.15, 9);
  const accountPages = laterPage(facts.accounts, 39) + 1;
  const last = modelAt(facts.models - 1);
  return [
    { name: 'usage_year', caller: 'management', url: `/v1/usage?${year}`, check: usageTotal(expected.year) },
    { name: 'usage_30_days', caller: 'management', url: '/v1/usage', check: usageTotal(expected.days30) },
    { name: 'usage_year_ordinary_key', caller: 'ordinary', url: `/v1/usage?${year}`, check: usageTotal(expected.yearOrdinary) },
    { name: 'usage_30_days_ordinary_key', caller: 'ordinary', url: '/v1/usage', check: usageTotal(expected.days30Ordinary) },
    { name: 'admin_usage_year', caller: 'admin', url: `${admin}/${facts.accountId}/usage?${year}`, check: usageTotal(expected.year) },
    { name: 'admin_usage_30_days', caller: 'admin', url: `${admin}/${facts.accountId}/usage`, check: usageTotal(expected.days30) },
    {
      name: 'admin_search_email',
      caller: 'admin',
      url: `${admin}?search=${encodeURIComponent(middleEmail)}`,
      check: (body) => (listOf(body).some((row) => row.name === middleEmail) ? null : `no account named ${middleEmail}`),
    },
    { name: 'admin_search_absent_name', caller: 'admin', url: `${admin}?search=${absentName}`, check: (body) => (listOf(body).length === 0 ? null : 'found an absent name') },
    { name: 'admin_search_common_word', caller: 'admin', url: `${admin}?search=${commonWord}`, check: fullPage(50) },
    { name: `admin_search_common_word_page_${searchPage + 1}`, caller: 'admin', url: `${admin}?search=${commonWord}`, after: searchPage, check: nonEmpty },
    {
      name: 'admin_search_by_id',
      caller: 'admin',
      url: `${admin}?search=${facts.middleAccount.id}`,
      check: (body) => (listOf(body)[0]?.id === facts.middleAccount.id ? null : `not ${facts.middleAccount.id}`),
    },
    { name: 'admin_accounts_newest', caller: 'admin', url: admin, check: fullPage(50) },
    { name: `admin_accounts_${accountPages}_pages`, caller: 'admin', url: admin, mode: 'walk', pages: accountPages, check: fullPage(50) },
    { name: `admin_accounts_page_${accountPages}`, caller: 'admin', url: admin, after: accountPages - 1, check: fullPage(50) },
    { name: 'admin_account_by_id', caller: 'admin', url: `${admin}/${facts.middleAccount.id}`, check: (body) => ((body.data as { id?: string }).id === facts.middleAccount.id ? null : 'another account') },
    { name: 'admin_account_keys', caller: 'admin', url: `${admin}/${facts.accountId}/keys`, check: fullPage(Math.min(50, facts.keys)) },
    { name: `admin_account_keys_page_${keyPage + 1}`, caller: 'admin', url: `${admin}/${facts.accountId}/keys`, after: keyPage, check: nonEmpty },
    { name: 'admin_uncollected', caller: 'admin', url: `/v1/admin/uncollected?account_id=${facts.accountId}` },
    { name: 'keys_list', caller: 'management', url: '/v1/keys', check: fullPage(Math.min(50, facts.keys)) },
    { name: `keys_list_page_${keyPage + 1}`, caller: 'management', url: '/v1/keys', after: keyPage, check: nonEmpty },
    { name: 'requests_newest', caller: 'management', url: '/v1/requests', check: fullPage(50) },
    { name: 'requests_ordinary_key', caller: 'ordinary', url: '/v1/requests', check: fullPage(50) },
    { name: 'requests_by_model', caller: 'management', url: `/v1/requests?model=${encodeURIComponent(last.model)}`, check: fullPage(50) },
    { name: 'requests_by_provider', caller: 'management', url: `/v1/requests?provider=${last.provider}`, check: fullPage(50) },
    { name: 'requests_by_status_refused', caller: 'management', url: '/v1/requests?status=refused', check: fullPage(50) },
    { name: 'requests_by_key_id', caller: 'management', url: `/v1/requests?key_id=${facts.ordinaryKeyId}`, check: fullPage(50) },
    { name: 'requests_by_end_user', caller: 'management', url: '/v1/requests?end_user=user-420', check: facts.requestRows >= 100_000 ? fullPage(50) : undefined },
    // An end user no row names (the seed's are user-N, N a multiple of 10): the sparsest filter,
    // whose page reads every day of the log to find nothing (issue 52).
    { name: 'requests_by_end_user_absent', caller: 'management', url: '/v1/requests?end_user=user-421', check: (body) => (listOf(body).length === 0 ? null : `${listOf(body).length} rows for an end user the seed does not make`) },
    { name: 'requests_one_day_60_days_ago', caller: 'management', url: `/v1/requests?from=${day(today - 60 * dayMs)}&to=${day(today - 60 * dayMs)}`, check: facts.requestRows >= 100_000 ? fullPage(50) : undefined },
    { name: 'requests_500_rows', caller: 'management', url: '/v1/requests?limit=500', check: fullPage(Math.min(500, facts.requestRows)) },
    { name: 'request_by_id', caller: 'management', url: `/v1/requests/${facts.requestId}`, check: (body) => ((body.data as { id?: string }).id === facts.requestId ? null : 'another request') },
    { name: 'requests_40_pages', caller: 'management', url: '/v1/requests', mode: 'walk', pages: 40, check: fullPage(50) },
    // The account's money movements (contract §7): the partial index skips its charges, which the
    // seed's request log fills; the seed makes no top-ups, so the page is as short as its grants.
    { name: 'credit_transactions', caller: 'management', url: '/v1/credits/transactions' },
    { name: 'credit_transactions_500_rows', caller: 'management', url: '/v1/credits/transactions?limit=500' },
    // Files and batches (contract §9, issue 51): OpenAI's lists page by `after`, Anthropic's by
    // `after_id`; the batches of both shapes share a table, each list reads its kind's index.
    { name: 'files_list_100', caller: 'management', url: '/v1/files?limit=100', check: fullPage(Math.min(100, facts.batchRows)) },
    { name: 'files_list_100_middle', caller: 'management', url: `/v1/files?limit=100&after=${facts.middleFileId}`, check: fullPage(Math.min(100, Math.floor(facts.batchRows / 2))) },
    { name: 'files_list_default', caller: 'management', url: '/v1/files', check: fullPage(Math.min(1_000, facts.batchRows)) },
    { name: 'batches_list', caller: 'management', url: '/v1/batches', check: fullPage(Math.min(20, Math.ceil(facts.batchRows / 4))) },
    { name: 'batches_list_100', caller: 'management', url: '/v1/batches?limit=100', check: fullPage(Math.min(100, Math.ceil(facts.batchRows / 4))) },
    { name: 'batches_list_100_middle', caller: 'management', url: `/v1/batches?limit=100&after=${facts.middleBatchId}`, check: fullPage(Math.min(100, Math.floor(facts.batchRows / 8))) },
    { name: 'message_batches_list', caller: 'management', url: '/v1/messages/batches', check: fullPage(Math.min(20, facts.batchRows - Math.ceil(facts.batchRows / 4))) },
    { name: 'message_batches_list_100_middle', caller: 'management', url: `/v1/messages/batches?limit=100&after_id=${facts.middleMessageBatchId}`, check: fullPage(Math.min(100, Math.floor((facts.batchRows * 3) / 8) - 1)) },
  ];
}
