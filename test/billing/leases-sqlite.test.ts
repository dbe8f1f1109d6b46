import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { createStore, type Store } from '../../src/store/create-store.js';
import { killSpawnedServers, spawnServer, switchyardBin } from '../helpers/spawn-server.js';

/**
 * Leases on SQLite (docs/leases.md), as `switchyard serve` runs by default: requests reserve in
 * memory out of a lease row instead of a reservation transaction each. A model priced by
 * completion tokens only, a reply longer than `max_tokens`: every request reserves and is charged
 * exactly COST, so a balance of N × COST must serve exactly N requests.
 */
afterAll(killSpawnedServers);

const MAX_TOKENS = 10;
// 100 USD per million completion tokens × 10 tokens = 0.001 USD.
const COST = 1_000_000n;

function catalogYaml(simulatorUrl: string): string {
  return `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: sim-openai, name: Sim OpenAI, api: openai, base_url: "${simulatorUrl}/openai/v1", api_key: sim-key}
models:
  - id: sim/fixed
    name: "Sim: fixed cost"
    context_length: 32000
    modalities: {input: [text], output: [text]}
    endpoints:
      - provider: sim-openai
        model: gpt-fixed
        pricing: {prompt: 0, completion: 100}
        supported_parameters: [max_tokens]
        max_completion_tokens: 1000
`;
}

function send(url: string, key: string, index: number): Promise<number> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim/fixed', max_tokens: MAX_TOKENS, stream: index % 2 === 1, messages: [{ role: 'user', content: `request ${index}` }] }),
  }).then((response) => response.text().then(() => response.status, () => 0), () => 0);
}

async function burst(url: string, key: string, count: number, concurrency: number): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        statuses[index] = await send(url, key, index);
      }
    }),
  );
  return statuses;
}

async function books(store: Store, accountId: string) {
  const total = async (query: ReturnType<typeof sql<{ total: bigint | null }>>) => BigInt((await query.execute(store.db)).rows[0].total ?? 0);
  const account = await store.db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirstOrThrow();
  return {
    credits: BigInt(account.total_credits),
    usage: BigInt(account.total_usage),
    reserved: BigInt(account.reserved),
    charges: await total(sql`select sum(amount) as total from ledger_entries where account_id = ${accountId} and kind = 'charge'`),
    uncollected: await total(sql`select sum(amount) as total from ledger_entries where account_id = ${accountId} and kind = 'uncollected'`),
    logged: await total(sql`select sum(cost) as total from requests where account_id = ${accountId}`),
    rolledUp: await total(sql`select sum(cost) as total from usage_rollups where account_id = ${accountId}`),
    open: (await store.db.selectFrom('reservations').select('id').where('account_id', '=', accountId).execute()).length,
  };
}

describe('leases on SQLite', () => {
  it('serve exactly N requests on a balance for N, refuse the rest with 402, and give the lease back at shutdown', async () => {
    const N = 300;
    const simulator = await startSimulator({ latencyMs: 5, replyTokens: 50 });
    const directory = mkdtempSync(join(tmpdir(), 'switchyard-leases-sqlite-'));
    const configPath = join(directory, 'switchyard.yaml');
    writeFileSync(configPath, catalogYaml(simulator.url));
    const env = { DATABASE_URL: `sqlite:${join(directory, 'leases.db')}`, SWITCHYARD_CONFIG: configPath, LOG_LEVEL: 'silent', SWITCHYARD_LEASES: undefined };
    const credits = ((Number(COST) * N) / 1e9).toFixed(9);
    const created = spawnSync(process.execPath, [switchyardBin, 'admin', 'create-account', '--credits', credits], { env: { ...process.env, ...env }, encoding: 'utf8' });
    const { key, data } = JSON.parse(created.stdout) as { key: string; data: { id: string } };
    const store = await createStore(env.DATABASE_URL);
    try {
      const server = await spawnServer(env);
      // A first wave, well inside the balance: served out of one lease row, no reservation row of a request's own left.
      const first = await burst(server.url, key, 40, 8);
      expect(first.every((status) => status === 200)).toBe(true);
      const rows = await store.db.selectFrom('reservations').select(['id', 'amount']).where('account_id', '=', data.id).execute();
      expect(rows.map((row) => row.id.slice(0, 4))).toEqual(['lse_']);
      const during = await books(store, data.id);
      expect(during.reserved).toBe(BigInt(rows[0].amount));
      expect(during.charges).toBe(40n * COST);

      const rest = await burst(server.url, key, 2 * N - 40, 16);
      const statuses = [...first, ...rest];
      expect(statuses.filter((status) => status === 200).length).toBe(N);
      expect(statuses.filter((status) => status === 402).length).toBe(N);

      const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const after = await books(store, data.id);
      expect(after.charges).toBe(COST * BigInt(N));
      expect(after).toMatchObject({ usage: after.credits, reserved: 0n, open: 0, uncollected: 0n, logged: after.charges, rolledUp: after.charges });
    } finally {
      await store.close();
      await simulator.close();
    }
  }, 180_000);
});
