import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '@switchyard/simulator';
import { fixedCostCatalogYaml, readBooks } from './fixed-cost-load.js';
import { switchyardBin } from './spawn-server.js';
import type { Store } from '../../src/store/create-store.js';

/**
 * Issue 45's lease tests (test/billing/lease-recall-*.test.ts), on the fixed-cost model
 * (0.0001 USD a completion token, a reply of 50 tokens) with a ceiling of 100,000 tokens, so
 * that a request reserves exactly `max_tokens` × 0.0001 USD: 10 tokens reserve (and cost)
 * 0.001 USD, 40,000 reserve 4 USD (and cost 0.005).
 */

/** A simulator, the catalog file and the environment of `switchyard serve` / `admin` over `databaseUrl`. */
export async function prepareLeaseRecall(databaseUrl: string, extraEnv: Record<string, string | undefined> = {}) {
  const simulator = await startSimulator({ latencyMs: 5, replyTokens: 50 });
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-lease-recall-'));
  const configPath = join(directory, 'switchyard.yaml');
  writeFileSync(configPath, fixedCostCatalogYaml(simulator.url, 100_000));
  const env = { DATABASE_URL: databaseUrl.replace('{dir}', directory), SWITCHYARD_CONFIG: configPath, LOG_LEVEL: 'silent', SWITCHYARD_LEASES: undefined, ...extraEnv };
  const createAccount = (credits: string) => {
    const created = spawnSync(process.execPath, [switchyardBin, 'admin', 'create-account', '--credits', credits], { env: { ...process.env, ...env }, encoding: 'utf8' });
    return JSON.parse(created.stdout) as { key: string; data: { id: string } };
  };
  return { env, simulator, createAccount };
}

async function call(url: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** One chat completion reserving `maxTokens` × 0.0001 USD. */
export function chat(url: string, key: string, maxTokens: number): Promise<{ status: number; body: any }> {
  return call(url, key, 'POST', '/v1/chat/completions', { model: 'sim/fixed', max_tokens: maxTokens, messages: [{ role: 'user', content: 'hello' }] });
}

export async function createKey(url: string, managementKey: string, limit: number | null): Promise<{ id: string; key: string }> {
  const created = await call(url, managementKey, 'POST', '/v1/keys', { name: 'worker', limit });
  if (created.status !== 201) throw new Error(`key not created: ${created.status} ${JSON.stringify(created.body)}`);
  return { id: created.body.data.id, key: created.body.key };
}

export async function keyUsage(url: string, managementKey: string, keyId: string): Promise<number> {
  const listed = await call(url, managementKey, 'GET', '/v1/keys');
  return (listed.body.data as Array<{ id: string; usage: number }>).find((key) => key.id === keyId)!.usage;
}

export function patchLimit(url: string, managementKey: string, keyId: string, limit: number): Promise<{ status: number; body: any }> {
  return call(url, managementKey, 'PATCH', `/v1/keys/${keyId}/limit`, { limit });
}

export function readCredits(url: string, key: string): Promise<{ status: number; body: any }> {
  return call(url, key, 'GET', '/v1/credits');
}

/**
 * What the books must read once the instances are stopped: every lease given back, nothing
 * held or booked `uncollected`, and charges = request log = usage (= rollups).
 */
export async function readBooksAndExact(store: Store, accountId: string) {
  const books = await readBooks(store, accountId);
  return { books, exact: { uncollected: 0n, reserved: 0n, keyReserved: 0n, held: 0n, logged: books.charges, rolledUp: books.charges, usage: books.charges } };
}
