import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killSpawnedServers, spawnServer, switchyardBin } from '../helpers/spawn-server.js';
import { testCatalogYaml } from '../helpers/test-config.js';

const bin = switchyardBin;

function runCli(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const result = spawnSync(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, cwd, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function waitForExit(child: ChildProcess): Promise<number | null> {
  return new Promise((resolvePromise) => child.on('exit', (code) => resolvePromise(code)));
}

afterAll(killSpawnedServers);

describe('the switchyard command', () => {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-cli-'));
  const env = { DATABASE_URL: `sqlite:${join(directory, 'cli.db')}`, LOG_LEVEL: 'silent' };

  it('creates an account, adds credits, links the messenger and shows it, straight on the database', () => {
    const created = runCli(['admin', 'create-account', '--name', 'cli', '--credits', '3.5'], env, directory);
    expect(created.stderr).not.toContain('error');
    expect(created.status).toBe(0);
    const account = JSON.parse(created.stdout);
    expect(account.key).toMatch(/^sy_/);
    expect(account.data).toMatchObject({ name: 'cli', balance: 3.5 });
    expect(existsSync(join(directory, 'cli.db'))).toBe(true);

    const credited = runCli(['admin', 'add-credits', account.data.id, '1.25'], env, directory);
    expect(JSON.parse(credited.stdout).data.balance).toBe(4.75);
    expect(JSON.parse(runCli(['admin', 'set-messenger', account.data.id, 'true'], env, directory).stdout)).toEqual({ data: { linked: true } });
    const shown = JSON.parse(runCli(['admin', 'show-account', account.data.id], env, directory).stdout);
    expect(shown.data).toMatchObject({ id: account.data.id, balance: 4.75, messenger_linked: true });
    const key = JSON.parse(runCli(['admin', 'create-key', account.data.id, '--name', 'second', '--limit', '2'], env, directory).stdout);
    expect(key.data).toMatchObject({ name: 'second', management: false, limit: 2 });
  });

  it('reports errors on stderr with a non-zero exit and no stack trace', () => {
    const missing = runCli(['admin', 'show-account', 'acc_missing'], env, directory);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('not found');
    expect(missing.stderr).not.toMatch(/\n\s+at /);
    expect(runCli(['admin', 'add-credits', 'acc_x', '-5'], env, directory).status).not.toBe(0);
  });

  it('serves the built-in catalog on SQLite, answers a CLI-created key, and exits 0 on SIGTERM', async () => {
    const { child, url } = await spawnServer(env, directory);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const account = JSON.parse(runCli(['admin', 'create-account', '--credits', '1'], env, directory).stdout);
    const credits = await fetch(`${url}/v1/credits`, { headers: { authorization: `Bearer ${account.key}` } });
    expect(credits.status).toBe(200);
    expect(await credits.json()).toEqual({ data: { total_credits: 1, total_usage: 0, balance: 1 } });
    const models = (await (await fetch(`${url}/v1/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.length).toBeGreaterThan(20);
    expect((await fetch(`${url}/ready`)).status).toBe(200);
    const exited = waitForExit(child);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses to start on an invalid config file, naming the file and the field', async () => {
    const path = join(directory, 'bad.yaml');
    writeFileSync(path, testCatalogYaml.replace('api: anthropic', 'api: smoke-signals'));
    const result = runCli(['serve'], { ...env, SWITCHYARD_CONFIG: path, PORT: '0' }, directory);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(path);
    expect(result.stderr).toContain('providers[1].api');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
