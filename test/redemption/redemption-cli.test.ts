import { runAdminCommand } from '../helpers/run-admin-command.js';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerAdminCommands } from '../../src/cli/admin-commands.js';
import { registerRedemptionCommands } from '../../src/cli/redemption-commands.js';
import { startTestApp, type TestApp } from '../helpers/start-test-app.js';

/**
 * `switchyard admin redemption-codes create|list`, run in this process on a SQLite file that a
 * running app also serves: the codes the CLI prints redeem through the API, and the list shows it.
 */
describe('switchyard admin redemption-codes', () => {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-redemption-'));
  const databaseUrl = `sqlite:${join(directory, 'codes.db')}`;
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp({ databaseUrl });
  });
  afterAll(async () => test?.close());

  const runAdmin = (args: string[]) => runAdminCommand(args, { DATABASE_URL: databaseUrl });

  const redeem = (key: string, code: string) =>
    test.app.inject({ method: 'POST', url: '/v1/credits/redeem', headers: { authorization: `Bearer ${key}` }, payload: { code } });

  it('creates a batch and prints its codes, which redeem through the API; list shows the redeemed count', async () => {
    const created = await runAdmin(['redemption-codes', 'create', '--amount', '5', '--count', '3', '--note', 'conference', '--expires-at', '2099-01-01T00:00:00Z']);
    expect(created.data).toMatchObject({ amount: 5, count: 3, redeemed: 0, note: 'conference', expires_at: '2099-01-01T00:00:00.000Z' });
    expect(created.data.codes).toHaveLength(3);
    const { key } = await test.createAccount();
    const answer = await redeem(key, created.data.codes[0]);
    expect(answer.statusCode).toBe(200);
    expect(answer.json().data).toEqual({ amount: 5, balance: 5 });

    const listed = await runAdmin(['redemption-codes', 'list']);
    expect(listed.data[0]).toMatchObject({ id: created.data.id, count: 3, redeemed: 1 });
    expect(listed.next_cursor).toBeNull();
  });

  it('writes the codes to a new file readable by its owner alone with --out, and prints none', async () => {
    const out = join(directory, 'codes.txt');
    const created = await runAdmin(['redemption-codes', 'create', '--amount', '1', '--count', '4', '--out', out]);
    expect(created.data.codes).toBeUndefined();
    expect(created.out).toBe(out);
    const codes = readFileSync(out, 'utf8').trim().split('\n');
    expect(codes).toHaveLength(4);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const { key } = await test.createAccount();
    expect((await redeem(key, codes[3])).statusCode).toBe(200);

    const listed = await runAdmin(['redemption-codes', 'list', '--limit', '1']);
    expect(listed.data).toEqual([expect.objectContaining({ id: created.data.id, count: 4, redeemed: 1 })]);
    expect(listed.next_cursor).toBe(created.data.id);

    // Never over an existing file (it holds the codes above), and no batch is made then.
    const error = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const program = new Command('switchyard').exitOverride();
      registerRedemptionCommands(registerAdminCommands(program));
      process.env.DATABASE_URL = databaseUrl;
      await program.parseAsync(['node', 'switchyard', 'admin', 'redemption-codes', 'create', '--amount', '1', '--count', '1', '--out', out]);
      expect(process.exitCode).toBe(1);
      expect(String(error.mock.calls[0][0])).toContain('EEXIST');
    } finally {
      error.mockRestore();
      delete process.env.DATABASE_URL;
      process.exitCode = 0;
    }
    expect(readFileSync(out, 'utf8').trim().split('\n')).toEqual(codes);
    expect((await runAdmin(['redemption-codes', 'list'])).data[0].id).toBe(created.data.id);
  });
});
