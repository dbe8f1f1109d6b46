import { runAdminCommand } from '../helpers/run-admin-command.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCatalogYaml } from '../helpers/test-config.js';
import { botToken, startPeopleHarness, type PeopleHarness } from './people-harness.js';


describe('the operator sees users and the sign-in settings (admin API and CLI alike)', () => {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-people-'));
  const databaseUrl = `sqlite:${join(directory, 'people.db')}`;
  let h: PeopleHarness;
  const admin = (path: string) => h.call('GET', path, { headers: { authorization: `Bearer ${h.test.adminToken}` } });
  beforeAll(async () => {
    h = await startPeopleHarness(databaseUrl, '{mode: open, bonus_credits: 2.5, allowed_email_domains: [example.com]}');
    for (const email of ['ann@example.com', 'bob@example.com', 'cy@example.com']) await h.signInByMail(email);
  });
  afterAll(() => h?.close());

  it('GET /admin/users pages newest first and finds a user by email', async () => {
    const first = await admin('/admin/users?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data.map((user: { email: string }) => user.email)).toEqual(['cy@example.com', 'bob@example.com']);
    const second = await admin(`/admin/users?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ data: [{ email: 'ann@example.com' }], next_cursor: null });
    const found = await admin('/admin/users?email=Bob@Example.com');
    expect(found.body.data).toEqual([
      { id: expect.any(String), name: 'bob', email: 'bob@example.com', telegram_id: null, created_at: expect.any(String), accounts: [{ id: expect.any(String), name: 'bob', role: 'owner' }] },
    ]);
    expect((await h.call('GET', '/admin/users')).status).toBe(401);
  });

  it('GET /admin/auth-settings shows what is on without a secret', async () => {
    const settings = await admin('/admin/auth-settings');
    expect(settings.body.data).toMatchObject({
      public_url: h.base,
      oidc: [],
      telegram: { login: true, bot_username: 'switchyard_test_bot' },
      email: { smtp_host: '127.0.0.1', from: 'Switchyard <sign-in@switchyard.test>' },
      signup: { mode: 'open', bonus_credits: 2.5, allowed_email_domains: ['example.com'] },
    });
    expect(JSON.stringify(settings.body)).not.toContain(botToken);
  });

  it('switchyard admin add-member gives an address a role in an account, as the admin API does', async () => {
    const { accountId } = await h.test.createAccount({ name: 'shared' });
    const added = await runAdminCommand(['add-member', accountId, 'ann@example.com', '--role', 'viewer'], { DATABASE_URL: databaseUrl });
    expect(added.data).toMatchObject({ email: 'ann@example.com', account_id: accountId, role: 'viewer' });
    const ann = (await admin('/admin/users?email=ann@example.com')).body.data[0];
    expect(ann.accounts).toContainEqual({ id: accountId, name: 'shared', role: 'viewer' });
    const promoted = await runAdminCommand(['add-member', accountId, 'ann@example.com', '--role', 'owner'], { DATABASE_URL: databaseUrl });
    expect(promoted.data.user_id).toBe(ann.id);
    expect((await admin('/admin/users?email=ann@example.com')).body.data[0].accounts).toContainEqual({ id: accountId, name: 'shared', role: 'owner' });
  });

  it('switchyard admin users and auth-settings print the same', async () => {
    const users = await runAdminCommand(['users', '--email', 'ANN@example.com'], { DATABASE_URL: databaseUrl });
    expect(users).toEqual((await admin('/admin/users?email=ann@example.com')).body);

    const configPath = join(directory, 'switchyard.yaml');
    writeFileSync(configPath, `${testCatalogYaml}\nauth:\n  email: {smtp_url: "smtp://user:hunter2@mail.example.com:2525", from: "x@example.com"}\nsignup: {mode: invite}\n`);
    const settings = await runAdminCommand(['auth-settings'], { SWITCHYARD_CONFIG: configPath, SWITCHYARD_PUBLIC_URL: 'https://ai.example.com' });
    expect(settings.data).toMatchObject({
      public_url: 'https://ai.example.com',
      email: { smtp_host: 'mail.example.com', smtp_port: 2525, from: 'x@example.com' },
      signup: { mode: 'invite', bonus_credits: 0 },
    });
    expect(JSON.stringify(settings)).not.toContain('hunter2');
  });
});
