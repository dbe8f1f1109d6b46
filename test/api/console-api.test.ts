import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageContentSecurityPolicy, registerWebRoutes } from '../../src/api/web/routes.js';
import { startSimulatedGateway, sendJson, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';

// Node 20's fetch types answer `unknown`; these tests read the shapes they assert.
type Json = any;

for (const database of testDatabases()) {
  describe(`operator console and messenger API on ${database.name}`, () => {
    let gateway: SimulatedGateway;
    const admin = (method: string, path: string, body?: unknown) => sendJson(gateway, gateway.test.adminToken, method, path, body);

    beforeAll(async () => {
      gateway = await startSimulatedGateway({ databaseUrl: database.url });
    });
    afterAll(async () => gateway?.close());

    it('lists and searches accounts with cursor paging, case-insensitively, wildcards taken literally, short queries as whole names', async () => {
      const names = ['Zeta Labs', 'zeta_shop', 'Omega%Co'];
      const ids: string[] = [];
      for (const name of names) ids.push((await gateway.test.createAccount({ name, credits: 1 })).accountId);

      const zeta = (await (await admin('GET', '/admin/accounts?search=ZETA')).json()) as Json;
      expect(zeta.data.map((account: Json) => account.name).sort()).toEqual(['Zeta Labs', 'zeta_shop']);
      // `_` and `%` match themselves only.
      const underscore = (await (await admin('GET', '/admin/accounts?search=a_s')).json()) as Json;
      expect(underscore.data.map((account: Json) => account.name)).toEqual(['zeta_shop']);
      const percent = (await (await admin('GET', '/admin/accounts?search=A%25C')).json()) as Json;
      expect(percent.data.map((account: Json) => account.name)).toEqual(['Omega%Co']);
      // Shorter than a trigram: the whole name only (docs/api-decisions.md, "Account search").
      const whole = (await (await admin('GET', '/admin/accounts?search=%25')).json()) as Json;
      expect(whole.data).toEqual([]);
      const byId = (await (await admin('GET', `/v1/admin/accounts?search=${ids[0]}`)).json()) as Json;
      expect(byId.data).toHaveLength(1);
      expect(byId.data[0]).toMatchObject({ id: ids[0], balance: 1, messenger_linked: false });

      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = (await (await admin('GET', `/admin/accounts?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json()) as Json;
        expect(page.data.length).toBeLessThanOrEqual(2);
        seen.push(...page.data.map((account: Json) => account.id));
        cursor = page.next_cursor;
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(expect.arrayContaining([gateway.accountId, ...ids]));

      const refused = await sendJson(gateway, gateway.key, 'GET', '/admin/accounts');
      expect(refused.status).toBe(401);
    });

    it('lists an account\u2019s keys and revokes one, which is refused from then on', async () => {
      const created = (await (await sendJson(gateway, gateway.key, 'POST', '/v1/keys', { name: 'to-revoke' })).json()) as Json;
      const keys = (await (await admin('GET', `/admin/accounts/${gateway.accountId}/keys`)).json()) as Json;
      expect(keys.data.map((key: Json) => key.id)).toContain(created.data.id);
      expect(keys.next_cursor).toBeNull();
      expect((await sendJson(gateway, created.key, 'GET', '/v1/credits')).status).toBe(200);

      const revoked = await admin('DELETE', `/admin/accounts/${gateway.accountId}/keys/${created.data.id}`);
      expect(await revoked.json()).toEqual({ data: { id: created.data.id, revoked: true } });
      expect((await sendJson(gateway, created.key, 'GET', '/v1/credits')).status).toBe(401);
      expect((await admin('DELETE', `/admin/accounts/${gateway.accountId}/keys/${created.data.id}`)).status).toBe(404);
      // A key of another account is not found under this one.
      const other = await gateway.test.createAccount();
      const otherKeys = (await (await admin('GET', `/admin/accounts/${other.accountId}/keys`)).json()) as Json;
      expect((await admin('DELETE', `/admin/accounts/${gateway.accountId}/keys/${otherKeys.data[0].id}`)).status).toBe(404);
      expect((await admin('GET', '/admin/accounts/acc_missing/keys')).status).toBe(404);
    });

    it('reports an account\u2019s usage exactly as the account\u2019s own /usage does', async () => {
      for (let index = 0; index < 3; index += 1) {
        const response = await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', { model: 'sim/openai-model', messages: [{ role: 'user', content: `hello ${index}` }] });
        expect(response.status).toBe(200);
      }
      await gateway.test.context.requestLog.flush();
      const own = (await (await sendJson(gateway, gateway.key, 'GET', '/v1/usage')).json()) as Json;
      const operator = (await (await admin('GET', `/admin/accounts/${gateway.accountId}/usage`)).json()) as Json;
      expect(operator).toEqual(own);
      expect(operator.data.total.requests).toBe(3);
      expect(operator.data.by_model).toEqual([expect.objectContaining({ model: 'sim/openai-model', requests: 3 })]);
      expect((await admin('GET', `/admin/accounts/${gateway.accountId}/usage?from=2026-02-30`)).status).toBe(400);
    });

    it('shows each endpoint\u2019s circuit, latency and error rate, and providers without a key', async () => {
      const fail = () =>
        sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', { model: 'sim/gemini-model', messages: [{ role: 'user', content: 'x [[sim:status=500]]' }] });
      for (let index = 0; index < 5; index += 1) expect((await fail()).status).toBeGreaterThanOrEqual(500);
      const health = (await (await admin('GET', '/admin/providers/health')).json()) as Json;
      const gemini = health.data.find((provider: Json) => provider.id === 'sim-gemini');
      expect(gemini).toMatchObject({ has_key: true, enabled: true });
      const failing = gemini.endpoints.find((endpoint: Json) => endpoint.provider_model === 'gemini-sim');
      expect(failing).toMatchObject({ state: 'open', error_rate: 1, models: ['sim/gemini-model'] });
      expect(failing.consecutive_failures).toBeGreaterThanOrEqual(5);
      const openai = health.data.find((provider: Json) => provider.id === 'sim-openai');
      const healthy = openai.endpoints.find((endpoint: Json) => endpoint.provider_model === 'gpt-sim');
      expect(healthy).toMatchObject({ state: 'closed', error_rate: 0, recent_calls: 3 });
      expect(healthy.latency_ms).toBeGreaterThanOrEqual(0);
    });

    it('lets a management key read the link status (no code without a bot); ordinary keys are refused', async () => {
      const status = (await (await sendJson(gateway, gateway.key, 'GET', '/v1/messenger')).json()) as Json;
      expect(status.data).toEqual({ linked: false, messenger: null, linked_at: null, bot_configured: false });
      // With a bot, test/messenger/telegram-link.test.ts; here none runs, so nothing would redeem a code.
      const issued = await sendJson(gateway, gateway.key, 'POST', '/v1/messenger/link-code');
      expect(issued.status).toBe(404);
      expect(((await issued.json()) as Json).error.metadata.reason).toBe('messenger_not_configured');

      const ordinary = (await (await sendJson(gateway, gateway.key, 'POST', '/v1/keys', { name: 'ordinary' })).json()) as Json;
      for (const [method, path] of [['GET', '/v1/messenger'], ['POST', '/v1/messenger/link-code'], ['DELETE', '/v1/messenger']]) {
        const refused = await sendJson(gateway, ordinary.key, method, path);
        expect(refused.status).toBe(403);
        expect(((await refused.json()) as Json).error.code).toBe('forbidden');
      }
      expect((await sendJson(gateway, undefined, 'GET', '/v1/messenger')).status).toBe(401);

      expect((await admin('PUT', `/admin/accounts/${gateway.accountId}/messenger`, { linked: true })).status).toBe(200);
      const linked = (await (await sendJson(gateway, gateway.key, 'GET', '/v1/messenger')).json()) as Json;
      expect(linked.data).toMatchObject({ linked: true, messenger: 'admin' });
      expect((await sendJson(gateway, gateway.key, 'DELETE', '/v1/messenger')).status).toBe(200);
      expect(((await (await sendJson(gateway, gateway.key, 'GET', '/v1/messenger')).json()) as Json).data.linked).toBe(false);
    });
  });
}

describe('serving the account page', () => {
  let gateway: SimulatedGateway;
  beforeAll(async () => {
    gateway = await startSimulatedGateway();
  });
  afterAll(async () => gateway?.close());

  it('serves the page with a strict CSP, its assets by exact path, and the JSON envelope elsewhere', async () => {
    const assets = new Map([
      ['/', { body: Buffer.from('<!doctype html><script type="module" src="/app/assets/a-1.js"></script>'), contentType: 'text/html; charset=utf-8' }],
      ['/app/assets/a-1.js', { body: Buffer.from('export {}'), contentType: 'text/javascript; charset=utf-8' }],
    ]);
    const { default: Fastify } = await import('fastify');
    const app = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
    registerWebRoutes(app, gateway.test.context, assets);
    const page = await app.inject({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(pageContentSecurityPolicy);
    expect(pageContentSecurityPolicy).toContain("script-src 'self'");
    expect(pageContentSecurityPolicy).not.toContain('unsafe-inline');
    expect(page.headers['cache-control']).toBe('no-cache');
    const script = await app.inject({ method: 'GET', url: '/app/assets/a-1.js' });
    expect(script.body).toBe('export {}');
    expect(script.headers['cache-control']).toContain('immutable');
    const alias = await app.inject({ method: 'GET', url: '/app/' });
    expect(alias.body).toBe(page.body);
    await app.close();

    // On the real gateway: unknown paths under /app are the usual envelope, not a file lookup.
    for (const path of ['/app/..%2Fpackage.json', '/app/assets/..%2F..%2Fpackage.json', '/app/nothing.js', '/app/assets/']) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status).toBe(404);
      const body = (await response.json()) as Json;
      expect(body.error).toMatchObject({ code: 'not_found', status: 404 });
      expect(body.error.metadata.request_id).toBe(response.headers.get('x-request-id'));
    }
  });
});
