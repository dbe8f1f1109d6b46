import { sql } from 'kysely';
import type { Store } from '../../src/store/create-store.js';

/**
 * The leases tests' load (test/billing/leases-*.test.ts), on either database: a model priced by
 * completion tokens only and a reply longer than `max_tokens`, so that every request reserves and
 * is charged exactly FIXED_COST, and a balance of N × FIXED_COST must serve exactly N requests.
 */
export const FIXED_MAX_TOKENS = 10;
/** 100 USD per million completion tokens × 10 tokens = 0.001 USD, in nano-USD. */
export const FIXED_COST = 1_000_000n;

/** The balance, in USD as the admin CLI takes it, for exactly `requests` requests. */
export const creditsFor = (requests: number): string => ((Number(FIXED_COST) * requests) / 1e9).toFixed(9);

/** `maxCompletionTokens`: the endpoint's ceiling (1,000 unless a test reserves more per request). */
export function fixedCostCatalogYaml(simulatorUrl: string, maxCompletionTokens = 1000): string {
  return `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: sim-openai, name: Sim OpenAI, api: openai, base_url: "${simulatorUrl}/openai/v1", api_key: sim-key}
models:
  - id: sim/fixed
    name: "Sim: fixed cost"
    context_length: ${maxCompletionTokens + 31000}
    modalities: {input: [text], output: [text]}
    endpoints:
      - provider: sim-openai
        model: gpt-fixed
        pricing: {prompt: 0, completion: 100}
        supported_parameters: [max_tokens]
        max_completion_tokens: ${maxCompletionTokens}
`;
}

/** One request; its status, or 0 when the connection failed. Odd ones stream when `streamOdd`. */
function send(url: string, key: string, index: number, streamOdd: boolean): Promise<number> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim/fixed', max_tokens: FIXED_MAX_TOKENS, stream: streamOdd && index % 2 === 1, messages: [{ role: 'user', content: `request ${index}` }] }),
  }).then((response) => response.text().then(() => response.status, () => 0), () => 0);
}

/** Sends `count` requests round-robin over the instances, `concurrency` at a time; their statuses in order. */
export async function burst(urls: readonly string[], key: string, count: number, concurrency: number, options: { streamOdd?: boolean } = {}): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        statuses[index] = await send(urls[index % urls.length], key, index, options.streamOdd ?? false);
      }
    }),
  );
  return statuses;
}

/** An account's side of the books, in nano-USD, the same way on SQLite and PostgreSQL. */
export async function readBooks(store: Store, accountId: string) {
  const total = async (query: ReturnType<typeof sql<{ total: string | null }>>) => BigInt((await query.execute(store.db)).rows[0].total ?? 0);
  const account = await store.db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirstOrThrow();
  return {
    credits: BigInt(account.total_credits),
    usage: BigInt(account.total_usage),
    reserved: BigInt(account.reserved),
    keyReserved: await total(sql`select cast(coalesce(sum(reserved), 0) as text) as total from api_keys where account_id = ${accountId}`),
    charges: await total(sql`select cast(sum(amount) as text) as total from ledger_entries where account_id = ${accountId} and kind = 'charge'`),
    uncollected: await total(sql`select cast(sum(amount) as text) as total from ledger_entries where account_id = ${accountId} and kind = 'uncollected'`),
    logged: await total(sql`select cast(sum(cost) as text) as total from requests where account_id = ${accountId}`),
    rolledUp: await total(sql`select cast(sum(cost) as text) as total from usage_rollups where account_id = ${accountId}`),
    held: await total(sql`select cast(sum(amount) as text) as total from reservations where account_id = ${accountId}`),
    open: (await store.db.selectFrom('reservations').select('id').where('account_id', '=', accountId).execute()).length,
  };
}
