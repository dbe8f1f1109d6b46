import { runAdminCommand } from '../helpers/run-admin-command.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/start-test-app.js';


/**
 * Contract §7, the operator console's "payments and refunds per account": the operator reads one
 * account's money movements as its owner does, by the admin API and by the CLI alike.
 */
describe("the operator reads an account's transactions", () => {
  const databaseUrl = `sqlite:${join(mkdtempSync(join(tmpdir(), 'switchyard-transactions-')), 'gateway.db')}`;
  let test: TestApp;
  let accountId: string;
  let key: string;
  const call = (method: 'GET' | 'POST', url: string, authorization: string, payload?: object) =>
    test.app.inject({ method, url, headers: { authorization: `Bearer ${authorization}` }, payload });

  beforeAll(async () => {
    test = await startTestApp({ databaseUrl });
    ({ accountId, key } = await test.createAccount({ name: 'books', credits: 3 }));
    expect((await call('POST', `/admin/accounts/${accountId}/credits`, test.adminToken, { amount: 7 })).statusCode).toBe(200);
    const codes = await call('POST', '/admin/redemption-codes', test.adminToken, { amount: 2, count: 1 });
    expect(codes.statusCode).toBe(201);
    const code = (codes.json() as { data: { codes: string[] } }).data.codes[0];
    expect((await call('POST', '/v1/credits/redeem', key, { code })).statusCode).toBe(200);
  });
  afterAll(() => test?.close());

  it('GET /admin/accounts/{id}/transactions answers what the owner sees, paged the same way', async () => {
    const owner = (await call('GET', '/v1/credits/transactions', key)).json() as { data: Array<{ kind: string; amount: number }> };
    const operator = await call('GET', `/admin/accounts/${accountId}/transactions`, test.adminToken);
    expect(operator.statusCode).toBe(200);
    expect(operator.json()).toEqual({ data: owner.data, next_cursor: null });
    expect(owner.data.map((row) => [row.kind, row.amount])).toEqual([
      ['redemption', 2],
      ['grant', 7],
      ['grant', 3],
    ]);
    const first = (await call('GET', `/admin/accounts/${accountId}/transactions?limit=2`, test.adminToken)).json() as { data: unknown[]; next_cursor: string };
    expect(first.data).toEqual(owner.data.slice(0, 2));
    const second = (await call('GET', `/admin/accounts/${accountId}/transactions?limit=2&cursor=${first.next_cursor}`, test.adminToken)).json();
    expect(second).toEqual({ data: owner.data.slice(2), next_cursor: null });
  });

  it('refuses a key in place of the admin token, and names an unknown account', async () => {
    expect((await call('GET', `/admin/accounts/${accountId}/transactions`, key)).statusCode).toBe(401);
    const unknown = await call('GET', '/admin/accounts/acc_missing/transactions', test.adminToken);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('switchyard admin audit prints what GET /admin/accounts/{id}/audit answers, filtered alike', async () => {
    const api = (await call('GET', `/admin/accounts/${accountId}/audit`, test.adminToken)).json() as { data: Array<{ action: string }> };
    expect(api.data.map((entry) => entry.action)).toEqual(expect.arrayContaining(['money.grant', 'money.redemption', 'key.create']));
    expect(await runAdminCommand(['audit', accountId], { DATABASE_URL: databaseUrl })).toEqual(api);
    const money = (await call('GET', `/admin/accounts/${accountId}/audit?action=money`, test.adminToken)).json();
    expect(await runAdminCommand(['audit', accountId, '--action', 'money'], { DATABASE_URL: databaseUrl })).toEqual(money);
  });

  it('switchyard admin transactions prints the same list', async () => {
    const api = (await call('GET', `/admin/accounts/${accountId}/transactions`, test.adminToken)).json();
    expect(await runAdminCommand(['transactions', accountId], { DATABASE_URL: databaseUrl })).toEqual(api);
    const page = await runAdminCommand(['transactions', accountId, '--limit', '1'], { DATABASE_URL: databaseUrl });
    expect(page.data).toEqual(api.data.slice(0, 1));
    expect(page.next_cursor).toBe(api.data[0].id);
  });
});
