import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestConfig } from '../helpers/test-config.js';
import { startTestApp, type TestApp } from '../helpers/start-test-app.js';
import { testDatabases } from '../helpers/test-databases.js';

for (const database of testDatabases()) {
  describe(`admin API on ${database.name}`, () => {
    let test: TestApp;
    beforeAll(async () => {
      test = await startTestApp({ databaseUrl: database.url });
    });
    afterAll(async () => test?.close());
    const admin = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, token = test.adminToken) =>
      test.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload: payload as object });

    it('creates an account with credits and a working management key', async () => {
      const created = await admin('POST', '/admin/accounts', { name: 'acme', credits: 10.25 });
      expect(created.statusCode).toBe(201);
      const body = created.json();
      expect(body.data).toEqual({ id: expect.stringMatching(/^acc_/), name: 'acme', balance: 10.25 });
      expect(body.key).toMatch(/^sy_[A-Za-z0-9_-]{40,}$/);
      const keys = await test.app.inject({ method: 'GET', url: '/v1/keys', headers: { authorization: `Bearer ${body.key}` } });
      expect(keys.statusCode).toBe(200);
      expect(keys.json().data[0]).toMatchObject({ management: true });
    });

    it('adds credits as exact amounts and reports the account', async () => {
      const { data } = (await admin('POST', '/admin/accounts', {})).json();
      for (let index = 0; index < 10; index += 1) expect((await admin('POST', `/admin/accounts/${data.id}/credits`, { amount: 0.1 })).statusCode).toBe(200);
      const credited = await admin('POST', `/admin/accounts/${data.id}/credits`, { amount: 0.2 });
      expect(credited.json()).toEqual({ data: { balance: 1.2 } });
      const shown = await admin('GET', `/admin/accounts/${data.id}`);
      expect(shown.json().data).toMatchObject({ id: data.id, name: 'default', balance: 1.2, total_usage: 0, messenger_linked: false });
    });

    it('links and unlinks the messenger', async () => {
      const { data } = (await admin('POST', '/admin/accounts', {})).json();
      expect((await admin('PUT', `/admin/accounts/${data.id}/messenger`, { linked: true })).json()).toEqual({ data: { linked: true } });
      expect((await admin('GET', `/admin/accounts/${data.id}`)).json().data.messenger_linked).toBe(true);
      expect((await admin('PUT', `/admin/accounts/${data.id}/messenger`, { linked: false })).json()).toEqual({ data: { linked: false } });
      expect((await admin('GET', `/admin/accounts/${data.id}`)).json().data.messenger_linked).toBe(false);
    });

    it('validates bodies and answers 404 for unknown accounts', async () => {
      expect((await admin('POST', '/admin/accounts/acc_missing/credits', { amount: 1 })).statusCode).toBe(404);
      expect((await admin('GET', '/admin/accounts/acc_missing')).json().error.code).toBe('not_found');
      expect((await admin('PUT', '/admin/accounts/acc_missing/messenger', { linked: true })).statusCode).toBe(404);
      const { data } = (await admin('POST', '/admin/accounts', {})).json();
      for (const amount of [0, -1, 'ten']) {
        const response = await admin('POST', `/admin/accounts/${data.id}/credits`, { amount });
        expect(response.statusCode).toBe(400);
        expect(response.json().error.message).toContain('amount');
      }
      expect((await admin('POST', '/admin/accounts', { name: 'x', plan: 'gold' })).statusCode).toBe(400);
    });

    it('refuses a wrong or missing token with 401, and API keys are not admin tokens', async () => {
      expect((await admin('GET', '/admin/accounts/acc_x', undefined, 'wrong')).statusCode).toBe(401);
      const missing = await test.app.inject({ method: 'POST', url: '/admin/accounts', payload: {} });
      expect(missing.statusCode).toBe(401);
      expect(missing.json().error.code).toBe('invalid_api_key');
      const { key } = (await admin('POST', '/admin/accounts', {})).json();
      expect((await admin('POST', '/admin/accounts', {}, key)).statusCode).toBe(401);
    });

    it('is also reachable under /v1/admin', async () => {
      expect((await admin('POST', '/v1/admin/accounts', { name: 'v1' })).statusCode).toBe(201);
    });
  });
}

describe('admin API without SWITCHYARD_ADMIN_TOKEN', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp({ config: buildTestConfig({ adminToken: null }) });
  });
  afterAll(async () => test?.close());

  it('answers 404 not_found, whatever token is sent', async () => {
    for (const headers of [{}, { authorization: 'Bearer anything' }]) {
      const response = await test.app.inject({ method: 'POST', url: '/admin/accounts', headers, payload: {} });
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe('not_found');
    }
  });
});
