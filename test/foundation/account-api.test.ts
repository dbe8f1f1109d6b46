import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/start-test-app.js';
import { testDatabases } from '../helpers/test-databases.js';

for (const database of testDatabases()) {
  describe(`accounts, keys and credits on ${database.name}`, () => {
    let test: TestApp;
    let owner: { accountId: string; key: string };
    let stranger: { accountId: string; key: string };

    beforeAll(async () => {
      test = await startTestApp({ databaseUrl: database.url });
      owner = await test.createAccount({ name: 'owner', credits: 12.5 });
      stranger = await test.createAccount({ name: 'stranger', credits: 1 });
    });
    afterAll(async () => test?.close());

    const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, key?: string, payload?: unknown, headerName = 'authorization') =>
      test.app.inject({
        method,
        url,
        headers: key === undefined ? {} : { [headerName]: headerName === 'authorization' ? `Bearer ${key}` : key },
        payload: payload as object,
      });

    it('answers /credits with both auth headers', async () => {
      for (const header of ['authorization', 'x-api-key']) {
        const response = await call('GET', '/v1/credits', owner.key, undefined, header);
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual({ data: { total_credits: 12.5, total_usage: 0, balance: 12.5 } });
      }
    });

    it('refuses a missing, malformed or unknown key with 401 invalid_api_key', async () => {
      for (const key of [undefined, 'not-a-key', `sy_${'x'.repeat(43)}`]) {
        const response = await call('GET', '/v1/credits', key);
        expect(response.statusCode).toBe(401);
        const body = response.json();
        expect(body.error).toMatchObject({ code: 'invalid_api_key', status: 401, type: 'authentication_error' });
        expect(body.error.metadata.request_id).toBe(response.headers['x-request-id']);
      }
    });

    it('creates keys with limits and prices, lists them, and never shows the secret again', async () => {
      const created = await call('POST', '/v1/keys', owner.key, {
        name: 'worker',
        limit: 2.5,
        max_price: { prompt: 1, completion: 4 },
        model_max_prices: { 'acme/chat-small': { prompt: 0.5 } },
      });
      expect(created.statusCode).toBe(201);
      const body = created.json();
      expect(body.key).toMatch(/^sy_[A-Za-z0-9_-]{40,}$/);
      expect(body.data).toMatchObject({
        name: 'worker',
        management: false,
        limit: 2.5,
        limit_remaining: 2.5,
        usage: 0,
        max_price: { prompt: 1, completion: 4 },
        model_max_prices: { 'acme/chat-small': { prompt: 0.5, completion: null } },
      });
      expect(body.data.label).toBe(`${body.key.slice(0, 6)}…${body.key.slice(-4)}`);
      expect(body.data.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

      const listed = await call('GET', '/v1/keys', owner.key);
      expect(listed.statusCode).toBe(200);
      const keys = listed.json().data as Array<Record<string, unknown>>;
      expect(keys.map((key) => key.id)).toContain(body.data.id);
      expect(JSON.stringify(listed.json())).not.toContain(body.key);
      expect(listed.json().next_cursor).toBeNull();
    });

    it('pages through keys with limit and cursor', async () => {
      for (let index = 0; index < 3; index += 1) await call('POST', '/v1/keys', owner.key, { name: `page-${index}` });
      const first = await call('GET', '/v1/keys?limit=2', owner.key);
      expect(first.json().data).toHaveLength(2);
      const cursor = first.json().next_cursor as string;
      expect(cursor).toBeTruthy();
      const second = await call('GET', `/v1/keys?limit=2&cursor=${encodeURIComponent(cursor)}`, owner.key);
      const firstIds = first.json().data.map((key: { id: string }) => key.id);
      for (const key of second.json().data as Array<{ id: string }>) expect(firstIds).not.toContain(key.id);
      expect((await call('GET', '/v1/keys?limit=501', owner.key)).statusCode).toBe(400);
    });

    it('gives ordinary keys 403 forbidden on /keys but lets them read /credits', async () => {
      const ordinary = (await call('POST', '/v1/keys', owner.key, { name: 'plain' })).json().key as string;
      for (const [method, url] of [['GET', '/v1/keys'], ['POST', '/v1/keys'], ['DELETE', '/v1/keys/key_x']] as const) {
        const response = await call(method, url, ordinary, method === 'POST' ? {} : undefined);
        expect(response.statusCode).toBe(403);
        expect(response.json().error).toMatchObject({ code: 'forbidden', status: 403 });
      }
      expect((await call('GET', '/v1/credits', ordinary)).statusCode).toBe(200);
    });

    it('lets a management key create another management key', async () => {
      const created = await call('POST', '/v1/keys', owner.key, { name: 'ops', management: true });
      const key = created.json().key as string;
      expect((await call('GET', '/v1/keys', key)).statusCode).toBe(200);
    });

    it('changes limits and prices, clears them with null, and validates the body', async () => {
      const created = (await call('POST', '/v1/keys', owner.key, { name: 'limited', limit: 1 })).json();
      const id = created.data.id as string;
      const patched = await call('PATCH', `/v1/keys/${id}/limit`, owner.key, { limit: 3, max_price: { completion: 2 }, model_max_prices: { 'acme/chat-small': { completion: 1 } } });
      expect(patched.statusCode).toBe(200);
      expect(patched.json().data).toMatchObject({ limit: 3, max_price: { prompt: null, completion: 2 }, model_max_prices: { 'acme/chat-small': { prompt: null, completion: 1 } } });
      const cleared = await call('PATCH', `/v1/keys/${id}/limit`, owner.key, { limit: null, max_price: null, model_max_prices: null });
      expect(cleared.json().data).toMatchObject({ limit: null, limit_remaining: null, max_price: null, model_max_prices: {} });

      const unknownField = await call('PATCH', `/v1/keys/${id}/limit`, owner.key, { budget: 1 });
      expect(unknownField.statusCode).toBe(400);
      expect(unknownField.json().error.message).toContain("'budget'");
      const negative = await call('PATCH', `/v1/keys/${id}/limit`, owner.key, { limit: -1 });
      expect(negative.statusCode).toBe(400);
      expect(negative.json().error.message).toContain('limit');
      const unknownModel = await call('PATCH', `/v1/keys/${id}/limit`, owner.key, { model_max_prices: { 'nobody/nothing': { prompt: 1 } } });
      expect(unknownModel.statusCode).toBe(400);
      expect(unknownModel.json().error.message).toContain('nobody/nothing');
      expect((await call('PATCH', '/v1/keys/key_missing/limit', owner.key, { limit: 1 })).statusCode).toBe(404);
    });

    it('applies a limit change to a key that was just used (cache invalidated)', async () => {
      const created = (await call('POST', '/v1/keys', owner.key, { name: 'cached', management: true })).json();
      const key = created.key as string;
      expect((await call('GET', '/v1/keys', key)).statusCode).toBe(200);
      await call('PATCH', `/v1/keys/${created.data.id}/limit`, owner.key, { max_price: { prompt: 0.01 } });
      const listed = (await call('GET', '/v1/keys?limit=500', key)).json().data as Array<{ id: string; max_price: unknown }>;
      expect(listed.find((entry) => entry.id === created.data.id)?.max_price).toEqual({ prompt: 0.01, completion: null });
    });

    it('revokes a key: it is refused from then on and disappears from the list', async () => {
      const created = (await call('POST', '/v1/keys', owner.key, { name: 'doomed' })).json();
      const key = created.key as string;
      expect((await call('GET', '/v1/credits', key)).statusCode).toBe(200);
      const revoked = await call('DELETE', `/v1/keys/${created.data.id}`, owner.key);
      expect(revoked.statusCode).toBe(200);
      expect(revoked.json()).toEqual({ data: { id: created.data.id, revoked: true } });
      expect((await call('GET', '/v1/credits', key)).statusCode).toBe(401);
      const listed = (await call('GET', '/v1/keys?limit=500', owner.key)).json().data as Array<{ id: string }>;
      expect(listed.map((entry) => entry.id)).not.toContain(created.data.id);
      expect((await call('DELETE', `/v1/keys/${created.data.id}`, owner.key)).statusCode).toBe(404);
    });

    it('isolates accounts: another account\'s keys are not listed and look missing', async () => {
      const mine = (await call('POST', '/v1/keys', owner.key, { name: 'private' })).json().data.id as string;
      const theirs = (await call('GET', '/v1/keys?limit=500', stranger.key)).json().data as Array<{ id: string }>;
      expect(theirs.map((entry) => entry.id)).not.toContain(mine);
      const patch = await call('PATCH', `/v1/keys/${mine}/limit`, stranger.key, { limit: 0 });
      expect(patch.statusCode).toBe(404);
      expect(patch.json().error.code).toBe('not_found');
      expect((await call('DELETE', `/v1/keys/${mine}`, stranger.key)).statusCode).toBe(404);
      expect((await call('GET', '/v1/credits', stranger.key)).json().data.balance).toBe(1);
    });
  });
}
