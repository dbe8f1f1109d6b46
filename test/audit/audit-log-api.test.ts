import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/create-api-key.js';
import { recordAudit } from '../../src/audit/record-audit.js';
import { createId } from '../../src/core/ids.js';
import { insertAccount } from '../../src/store/repositories/accounts.js';
import { startTestApp, type TestApp } from '../helpers/start-test-app.js';
import { testDatabases } from '../helpers/test-databases.js';

/** Contract §8: the audit log is read by owners, admins and management keys, paged and filtered, and never changed by the API. */
describe.each(testDatabases())('GET /v1/audit on $name', (database) => {
  let test: TestApp;
  let accountId: string;
  let key: string;
  let otherKey: string;
  const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, authorization: string) =>
    test.app.inject({ method, url, headers: { authorization: `Bearer ${authorization}` } });

  /**
   * An account and its management key written straight to the store: the admin API would write
   * entries of its own (audit-walk.test.ts walks those), and this suite reads only its own.
   */
  async function quietAccount(name: string): Promise<{ accountId: string; key: string }> {
    const id = test.context.createId('acc');
    await insertAccount(test.context.store.db, { id, name, createdAt: test.context.clock.now().toISOString() });
    const { secret } = await createApiKey(test.context.store.db, test.context, { accountId: id, name: 'management', management: true });
    return { accountId: id, key: secret };
  }

  beforeAll(async () => {
    test = await startTestApp({ databaseUrl: database.url });
    ({ accountId, key } = await quietAccount('audited'));
    ({ key: otherKey } = await quietAccount('other'));
    const actions = [
      { action: 'key.create', actor: { type: 'user', id: 'usr_ann' }, target: 'key_1' },
      { action: 'key.limit', actor: { type: 'key', id: 'key_mgmt' }, target: 'key_1' },
      { action: 'member.role', actor: { type: 'user', id: 'usr_ann' }, target: 'usr_bob' },
      { action: 'money.grant', actor: { type: 'admin', id: 'admin' }, target: 'led_1' },
    ] as const;
    for (const [index, entry] of actions.entries()) {
      await recordAudit(test.context.store.db, {
        id: createId('aud', Date.parse('2026-12-07T10:00:00Z') + index * 1000),
        accountId,
        at: new Date(Date.parse('2026-12-07T10:00:00Z') + index * 1000).toISOString(),
        actor: entry.actor,
        action: entry.action,
        target: entry.target,
        ip: '203.0.113.7',
        details: { index },
      });
    }
  });
  afterAll(() => test?.close());

  it('answers the entries newest first in the contract shape, paged', async () => {
    const all = await call('GET', '/v1/audit', key);
    expect(all.statusCode).toBe(200);
    const body = all.json() as { data: Array<{ action: string }>; next_cursor: string | null };
    expect(body.data.map((entry) => entry.action)).toEqual(['money.grant', 'member.role', 'key.limit', 'key.create']);
    expect(body.data[0]).toEqual({ id: expect.stringMatching(/^aud_/), at: '2026-12-07T10:00:03.000Z', actor: { type: 'admin', id: 'admin' }, action: 'money.grant', target: 'led_1', ip: '203.0.113.7', details: { index: 3 } });
    const first = (await call('GET', '/v1/audit?limit=3', key)).json() as { data: unknown[]; next_cursor: string };
    expect(first.data).toEqual(body.data.slice(0, 3));
    expect((await call('GET', `/v1/audit?limit=3&cursor=${first.next_cursor}`, key)).json()).toEqual({ data: body.data.slice(3), next_cursor: null });
  });

  it('filters by an action, a family of actions and an actor', async () => {
    const actions = async (query: string) => ((await call('GET', `/v1/audit?${query}`, key)).json() as { data: Array<{ action: string }> }).data.map((entry) => entry.action);
    expect(await actions('action=key')).toEqual(['key.limit', 'key.create']);
    expect(await actions('action=key.create')).toEqual(['key.create']);
    expect(await actions('actor_type=user&actor_id=usr_ann')).toEqual(['member.role', 'key.create']);
    const bad = await call('GET', '/v1/audit?action=DROP%20TABLE', key);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'invalid_request' } });
  });

  it("shows another account nothing of this one's, and the operator the same list", async () => {
    expect((await call('GET', '/v1/audit', otherKey)).json()).toEqual({ data: [], next_cursor: null });
    const operator = await call('GET', `/admin/accounts/${accountId}/audit`, test.adminToken);
    expect(operator.json()).toEqual((await call('GET', '/v1/audit', key)).json());
  });

  it('has no route that changes or deletes an entry', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      expect((await call(method, '/v1/audit', key)).statusCode).toBe(405);
    }
    expect(test.app.registeredRoutes.filter((route) => route.url.includes('audit') && route.method !== 'GET' && route.method !== 'HEAD')).toEqual([]);
  });
});
