import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killSpawnedServers, spawnServer, switchyardBin } from '../helpers/spawn-server.js';

// The CLI prints the API's JSON; these tests read the shapes they assert.
type Json = any;

function runCli(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const result = spawnSync(process.execPath, [switchyardBin, ...args], { env: { ...process.env, ...env }, cwd, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, json: (): Json => JSON.parse(result.stdout) };
}

afterAll(killSpawnedServers);

describe('switchyard admin: the operator console calls on the command line', () => {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-console-cli-'));
  const env = { DATABASE_URL: `sqlite:${join(directory, 'console.db')}`, LOG_LEVEL: 'silent', SWITCHYARD_ADMIN_TOKEN: '' };

  it('prints its version', () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const result = runCli(['--version'], env, directory);
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });

  // Fourteen CLI processes, each opening the database and migrating it: generous on a busy machine.
  it('lists and searches accounts, lists and revokes keys, and reports usage', { timeout: 180_000 }, () => {
    const first = runCli(['admin', 'create-account', '--name', 'Console Co', '--credits', '2'], env, directory).json();
    const second = runCli(['admin', 'create-account', '--name', 'Other Org'], env, directory).json();

    const found = runCli(['admin', 'list-accounts', '--search', 'console'], env, directory).json();
    expect(found).toEqual({ data: [expect.objectContaining({ id: first.data.id, name: 'Console Co', balance: 2 })], next_cursor: null });
    const page = runCli(['admin', 'list-accounts', '--limit', '1'], env, directory).json();
    expect(page.data.map((account: Json) => account.id)).toEqual([second.data.id]);
    const rest = runCli(['admin', 'list-accounts', '--limit', '1', '--cursor', page.next_cursor], env, directory).json();
    expect(rest).toEqual({ data: [expect.objectContaining({ id: first.data.id })], next_cursor: null });
    expect(runCli(['admin', 'list-accounts', '--limit', '0'], env, directory).status).toBe(1);

    const extra = runCli(['admin', 'create-key', first.data.id, '--name', 'extra'], env, directory).json();
    const keys = runCli(['admin', 'list-keys', first.data.id], env, directory);
    expect(keys.json().data.map((key: Json) => key.name).sort()).toEqual(['extra', 'management']);
    expect(keys.stdout).not.toContain(extra.key);
    expect(runCli(['admin', 'revoke-key', first.data.id, extra.data.id], env, directory).json()).toEqual({ data: { id: extra.data.id, revoked: true } });
    expect(runCli(['admin', 'list-keys', first.data.id], env, directory).json().data.map((key: Json) => key.name)).toEqual(['management']);
    const again = runCli(['admin', 'revoke-key', first.data.id, extra.data.id], env, directory);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('not found');

    const usage = runCli(['admin', 'usage', first.data.id, '--from', '2026-01-01', '--to', '2026-01-31'], env, directory).json();
    expect(usage.data).toEqual({ total: { cost: 0, requests: 0, prompt_tokens: 0, completion_tokens: 0 }, by_day: [], by_model: [], by_provider: [], by_key: [], cache: { hits: 0, savings: 0, by_day: [] } });
    expect(runCli(['admin', 'usage', first.data.id, '--from', 'yesterday'], env, directory).stderr).toContain("'from' must be a date");
  });

  it('reads provider health from a running server, naming the providers without a key', async () => {
    const token = 'console-cli-admin-token-0123456789';
    expect(runCli(['admin', 'provider-health', '--url', 'http://127.0.0.1:9'], env, directory).stderr).toContain('SWITCHYARD_ADMIN_TOKEN is not set');
    const { url } = await spawnServer({ ...env, SWITCHYARD_ADMIN_TOKEN: token, OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' }, directory);
    // The started server (bin/switchyard.js builds what is missing) serves the account page and its script.
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(await page.text());
    expect(script).not.toBeNull();
    const asset = await fetch(`${url}${script![1]}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('javascript');

    const health = runCli(['admin', 'provider-health', '--url', url], { ...env, SWITCHYARD_ADMIN_TOKEN: token }, directory);
    expect(health.status).toBe(0);
    const providers = health.json().data as Json[];
    const openai = providers.find((provider) => provider.id === 'openai');
    // OPENAI_API_KEY is named by the built-in catalog and empty here: the console says the key is missing, not that none is needed.
    expect(openai).toMatchObject({ has_key: false, enabled: false, key: 'missing', routed: false });
    expect(openai.endpoints[0]).toMatchObject({ state: 'closed', error_rate: null, recent_calls: 0 });
    const refused = runCli(['admin', 'provider-health', '--url', url], { ...env, SWITCHYARD_ADMIN_TOKEN: 'wrong-token' }, directory);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('Invalid or missing admin token');
  });
});
