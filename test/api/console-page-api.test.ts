import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';

// Node 20's fetch types answer `unknown`; these tests read the shapes they assert.
type Json = any;

/**
 * What the account page and operator console read beyond the contract: why a request was
 * refused, the key's name on its log rows, a key's own limit (`GET /v1/key`), no link codes
 * without a bot, and keyless providers shown as routed.
 */
for (const database of testDatabases()) {
  describe(`the page's API on ${database.name}`, () => {
    let gateway: SimulatedGateway;
    const call = async (key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json; id: string }> => {
      const response = await sendJson(gateway, key, method, path, body);
      return { status: response.status, body: await response.json(), id: response.headers.get('x-request-id')! };
    };
    const chat = (key: string, body: Record<string, unknown>) => call(key, 'POST', '/v1/chat/completions', { messages: [{ role: 'user', content: 'hello' }], ...body });

    beforeAll(async () => {
      gateway = await startSimulatedGateway({
        databaseUrl: database.url,
        credits: 10,
        configure: (config) => {
          // The simulator needs no key, as a local Ollama or vLLM: written without api_key, it is on.
          config.providers[0].auth = { kind: 'none' };
          // One whose key variable is unset: off, and the console says which variable.
          config.providers.push({ ...config.providers[1], id: 'sim-unset', name: 'Sim Unset', auth: { kind: 'none' }, apiKeyVariable: 'SIM_UNSET_API_KEY', enabled: false });
        },
      });
    });
    afterAll(async () => gateway?.close());

    it('tells each refusal apart on the log: its code and the message the client got', async () => {
      const limited = await call(gateway.key, 'POST', '/v1/keys', { name: 'tight', limit: 0.000001 });
      const keyLimit = await chat(limited.body.key, { model: 'sim/openai-model', max_tokens: 100 });
      expect(keyLimit.status).toBe(402);
      expect(keyLimit.body.error.metadata.limit_type).toBe('key_limit');
      const unknown = await chat(gateway.key, { model: 'sim/openai-modle' });
      expect(unknown.status).toBe(503);
      const invalid = await chat(gateway.key, { model: 'sim/openai-model', n: 2 });
      expect(invalid.status).toBe(400);
      const served = await chat(gateway.key, { model: 'sim/openai-model', user: 'end-user-7' });
      expect(served.status).toBe(200);
      await gateway.test.context.requestLog.flush();

      for (const [answer, key] of [[keyLimit, limited.body.key], [unknown, gateway.key], [invalid, gateway.key]] as const) {
        const row = (await call(key, 'GET', `/v1/requests/${answer.id}`)).body.data;
        expect(row.status).toBe('refused');
        expect(row.error).toEqual({ code: answer.body.error.code, message: answer.body.error.message });
      }
      // The message is what tells a key limit from an empty balance, and a misspelt model from an unconfigured one.
      expect((await call(limited.body.key, 'GET', `/v1/requests/${keyLimit.id}`)).body.data.error.message).toMatch(/key/i);
      expect((await call(gateway.key, 'GET', `/v1/requests/${unknown.id}`)).body.data.error.message).toContain("did you mean 'sim/openai-model'");

      const listed = (await call(gateway.key, 'GET', '/v1/requests?limit=10')).body.data as Json[];
      const byId = new Map(listed.map((row) => [row.id, row]));
      expect(byId.get(invalid.id).error.code).toBe('invalid_request');
      expect(byId.get(served.id)).toMatchObject({ status: 'completed', error: null, end_user: 'end-user-7', omitted: [], key_name: 'management' });
      expect(byId.get(keyLimit.id).key_name).toBe('tight');
      const refusedOnly = (await call(gateway.key, 'GET', '/v1/requests?status=refused')).body.data as Json[];
      expect(refusedOnly.map((row) => row.error.code).sort()).toEqual(['insufficient_balance', 'invalid_request', 'no_available_provider']);
    });

    it('keeps a revoked key\u2019s name on its rows', async () => {
      const created = await call(gateway.key, 'POST', '/v1/keys', { name: 'short-lived' });
      const served = await chat(created.body.key, { model: 'sim/openai-model' });
      expect(served.status).toBe(200);
      await gateway.test.context.requestLog.flush();
      expect((await call(gateway.key, 'DELETE', `/v1/keys/${created.body.data.id}`)).status).toBe(200);
      expect((await call(gateway.key, 'GET', `/v1/requests/${served.id}`)).body.data).toMatchObject({ key_id: created.body.data.id, key_name: 'short-lived' });
    });

    it('gives any key its own limit, usage and what is left (GET /v1/key)', async () => {
      const created = await call(gateway.key, 'POST', '/v1/keys', { name: 'worker', limit: 2 });
      expect((await chat(created.body.key, { model: 'sim/openai-model' })).status).toBe(200);
      const own = await call(created.body.key, 'GET', '/v1/key');
      expect(own.status).toBe(200);
      const listed = (await call(gateway.key, 'GET', '/v1/keys')).body.data.find((key: Json) => key.id === created.body.data.id);
      expect(own.body.data).toEqual(listed);
      expect(own.body.data).toMatchObject({ name: 'worker', management: false, limit: 2 });
      expect(own.body.data.usage).toBeGreaterThan(0);
      expect(own.body.data.limit_remaining).toBeCloseTo(2 - own.body.data.usage, 9);
      // The management key has no limit: null, not a number.
      expect((await call(gateway.key, 'GET', '/v1/key')).body.data).toMatchObject({ name: 'management', limit: null, limit_remaining: null });
      const anonymous = await sendJson(gateway, undefined, 'GET', '/v1/key');
      expect(anonymous.status).toBe(401);
    });

    it('issues no messenger link code when no bot is configured, with a clear error', async () => {
      const status = (await call(gateway.key, 'GET', '/v1/messenger')).body.data;
      expect(status.bot_configured).toBe(false);
      for (const [key, path] of [[gateway.key, '/v1/messenger/link-code'], [gateway.test.adminToken, `/admin/accounts/${gateway.accountId}/messenger/link-code`]]) {
        const refused = await call(key, 'POST', path);
        expect(refused.status).toBe(404);
        expect(refused.body.error).toMatchObject({ code: 'not_found', metadata: { reason: 'messenger_not_configured', request_id: refused.id } });
        expect(refused.body.error.message).toContain('TELEGRAM_BOT_TOKEN');
      }
    });

    it('shows a keyless provider as routed and a provider whose key variable is unset as not', async () => {
      expect((await chat(gateway.key, { model: 'sim/openai-model' })).status).toBe(200);
      const health = (await call(gateway.test.adminToken, 'GET', '/admin/providers/health')).body.data as Json[];
      const state = (id: string) => {
        const provider = health.find((entry) => entry.id === id);
        return { key: provider.key, routed: provider.routed };
      };
      expect(state('sim-openai')).toEqual({ key: 'not_needed', routed: true });
      expect(state('sim-anthropic')).toEqual({ key: 'configured', routed: true });
      expect(state('sim-unset')).toEqual({ key: 'missing', routed: false });
      expect(health.find((entry) => entry.id === 'sim-openai').endpoints[0].recent_calls).toBeGreaterThan(0);
    });
  });
}
