import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { formatUtcDay } from '../../src/api/shared/decode-date-range.js';
import { createId } from '../../src/core/ids.js';
import { usdToNano } from '../../src/core/money.js';
import { findRequest } from '../../src/billing/db/requests.js';
import { completedRecord } from '../helpers/completed-record.js';
import { readSseEvents } from '../helpers/read-sse.js';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';

// Node 20's fetch types answer `unknown`; these tests read the shapes they assert.
type Json = any;

const dayMs = 86_400_000;
const today = () => formatUtcDay(Date.now());

for (const database of testDatabases()) {
  describe(`request log and usage on ${database.name}`, () => {
    let gateway: SimulatedGateway;

    beforeAll(async () => {
      gateway = await startSimulatedGateway({ databaseUrl: database.url });
    });
    afterAll(async () => gateway?.close());
    afterEach(() => gateway.simulator.reset());

    const send = async (key: string, path: string, body: unknown) => {
      const response = await fetch(`${gateway.url}/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const streamed = response.headers.get('content-type')?.startsWith('text/event-stream');
      const payload: Json = streamed ? await readSseEvents(response) : await response.json();
      return { status: response.status, id: response.headers.get('x-request-id')!, body: payload };
    };
    const get = async (key: string, path: string) => {
      const response = await gateway.test.app.inject({ method: 'GET', url: `/v1${path}`, headers: { authorization: `Bearer ${key}` } });
      return { status: response.statusCode, body: response.json() as Json };
    };
    const flush = () => gateway.test.context.requestLog.flush();
    const chat = (model: string, stream = false) => ({ model, messages: [{ role: 'user', content: 'hello' }], stream });
    const keyIdOf = async (key: string) => {
      const keys = await get(key, '/keys');
      return keys.body.data.find((entry: Json) => entry.management).id as string;
    };
    const newOrdinaryKey = async (managementKey: string) => {
      const response = await gateway.test.app.inject({
        method: 'POST',
        url: '/v1/keys',
        headers: { authorization: `Bearer ${managementKey}` },
        payload: { name: 'worker' },
      });
      const body = response.json() as Json;
      return { key: body.key as string, keyId: body.data.id as string };
    };
    const listAll = async (key: string, query = '') => {
      const rows: Json[] = [];
      let cursor: string | null = null;
      do {
        const page = await get(key, `/requests?limit=2${query}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status).toBe(200);
        rows.push(...page.body.data);
        cursor = page.body.next_cursor;
      } while (cursor);
      return rows;
    };

    it('records every endpoint, streaming and not, with usage, cost, provider and latency', async () => {
      const { key, accountId } = await gateway.test.createAccount({ credits: 10 });
      const keyId = await keyIdOf(key);
      const calls = [
        { path: '/chat/completions', body: (stream: boolean) => chat('sim/openai-model', stream), provider: 'sim-openai', model: 'sim/openai-model' },
        { path: '/responses', body: (stream: boolean) => ({ model: 'sim/gemini-model', input: 'hello', stream }), provider: 'sim-gemini', model: 'sim/gemini-model' },
        {
          path: '/messages',
          body: (stream: boolean) => ({ model: 'sim/anthropic-model', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }], stream }),
          provider: 'sim-anthropic',
          model: 'sim/anthropic-model',
        },
      ];
      const sent: Array<{ id: string; path: string; provider: string; model: string; stream: boolean; body: Json }> = [];
      for (const call of calls) {
        for (const stream of [false, true]) {
          const response = await send(key, call.path, call.body(stream));
          expect(response.status).toBe(200);
          sent.push({ id: response.id, path: call.path, provider: call.provider, model: call.model, stream, body: response.body });
        }
      }
      await flush();

      let total = 0n;
      for (const request of sent) {
        const { status, body } = await get(key, `/requests/${request.id}`);
        expect(status).toBe(200);
        expect(body.data).toMatchObject({
          id: request.id,
          model: request.model,
          provider: request.provider,
          endpoint: request.path,
          streamed: request.stream,
          status: 'completed',
          key_id: keyId,
        });
        expect(body.data.usage.completion_tokens).toBe(16);
        expect(body.data.usage.total_tokens).toBe(body.data.usage.prompt_tokens + 16);
        expect(body.data.cost).toBeGreaterThan(0);
        expect(body.data.latency_ms).toBeGreaterThanOrEqual(0);
        expect(Date.parse(body.data.created_at)).toBeGreaterThan(Date.now() - 60_000);
        total += usdToNano(body.data.cost);
      }
      const chatPlain = sent[0];
      expect((await get(key, `/requests/${chatPlain.id}`)).body.data.cost).toBe(chatPlain.body.usage.cost);

      const credits = await get(key, '/credits');
      expect(usdToNano(credits.body.data.total_usage)).toBe(total);
      const usage = await get(key, '/usage');
      expect(usage.status).toBe(200);
      expect(usdToNano(usage.body.data.total.cost)).toBe(total);
      expect(usage.body.data.total.requests).toBe(6);
      expect(usage.body.data.by_day).toEqual([{ day: today(), ...usage.body.data.total }]);
      expect(usage.body.data.by_key).toEqual([{ key_id: keyId, ...usage.body.data.total }]);
      expect(usage.body.data.by_provider.map((row: Json) => [row.provider, row.requests]).sort()).toEqual([
        ['sim-anthropic', 2],
        ['sim-gemini', 2],
        ['sim-openai', 2],
      ]);
      expect(usage.body.data.by_model).toHaveLength(3);
      const row = await findRequest(gateway.test.context.store.db, accountId, chatPlain.id);
      expect(row).toMatchObject({ accountId, estimated: false, errorCode: null });
    });

    it('logs refused requests (402, unknown model, bad parameter) at no cost, and failed upstream calls', async () => {
      const { key, accountId } = await gateway.test.createAccount({ credits: 0 });
      const broke = await send(key, '/chat/completions', chat('sim/openai-model'));
      expect(broke.status).toBe(402);
      const unknown = await send(key, '/messages', { model: 'nobody/nothing', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], stream: true });
      expect(unknown.status).toBe(503);
      const badParameter = await send(key, '/chat/completions', { ...chat('sim/openai-model'), budget: 3 });
      expect(badParameter.status).toBe(400);
      const noModel = await send(key, '/chat/completions', { messages: [{ role: 'user', content: 'hi' }] });
      expect(noModel.status).toBe(400);
      await flush();

      const db = gateway.test.context.store.db;
      const expectations: Array<[string, string, string, boolean]> = [
        [broke.id, '/chat/completions', 'insufficient_balance', false],
        [unknown.id, '/messages', 'no_available_provider', true],
        [badParameter.id, '/chat/completions', 'invalid_request', false],
      ];
      for (const [id, endpoint, code, streamed] of expectations) {
        const { status, body } = await get(key, `/requests/${id}`);
        expect(status).toBe(200);
        expect(body.data).toMatchObject({ status: 'refused', provider: null, endpoint, streamed, cost: 0, usage: { total_tokens: 0 } });
        expect((await findRequest(db, accountId, id))?.errorCode).toBe(code);
      }
      expect((await get(key, `/requests/${noModel.id}`)).status).toBe(404);
      // Refused requests used nothing: they are in the log, not in the statistics.
      expect((await get(key, '/usage')).body.data.total).toEqual({ cost: 0, requests: 0, prompt_tokens: 0, completion_tokens: 0 });

      const paying = await gateway.test.createAccount({ credits: 10 });
      gateway.simulator.setFault({ fault: { status: 500 } });
      const failed = await send(paying.key, '/chat/completions', chat('sim/openai-model'));
      expect(failed.status).toBe(502);
      await flush();
      const { body } = await get(paying.key, `/requests/${failed.id}`);
      expect(body.data).toMatchObject({ status: 'failed', provider: 'sim-openai', cost: 0 });
      expect((await findRequest(db, paying.accountId, failed.id))?.errorCode).toBe('upstream_error');
    });

    it('filters, paginates newest first, and keeps accounts and ordinary keys apart', async () => {
      const { key, accountId } = await gateway.test.createAccount({ credits: 10 });
      const managementKeyId = await keyIdOf(key);
      const worker = await newOrdinaryKey(key);
      const ids: string[] = [];
      for (const [who, model] of [
        [key, 'sim/openai-model'],
        [key, 'sim/anthropic-model'],
        [worker.key, 'sim/openai-model'],
        [key, 'sim/openai-model'],
        [worker.key, 'sim/anthropic-model'],
      ] as const) {
        ids.push((await send(who, '/chat/completions', chat(model))).id);
      }
      const refused = await send(key, '/chat/completions', chat('nobody/nothing'));
      ids.push(refused.id);
      await flush();
      const newestFirst = [...ids].reverse();

      const all = await listAll(key);
      expect(all.map((row) => row.id)).toEqual(newestFirst);
      const firstPage = await get(key, '/requests');
      expect(firstPage.body.data.map((row: Json) => row.id)).toEqual(newestFirst);
      expect(firstPage.body.next_cursor).toBeNull();
      expect(firstPage.body.data[0]).toEqual((await get(key, `/requests/${refused.id}`)).body.data);

      expect((await listAll(key, '&model=sim/anthropic-model')).map((row) => row.id)).toEqual([ids[4], ids[1]]);
      expect((await listAll(key, '&provider=sim-openai')).map((row) => row.id)).toEqual([ids[3], ids[2], ids[0]]);
      expect((await listAll(key, '&status=refused')).map((row) => row.id)).toEqual([refused.id]);
      expect((await listAll(key, `&key_id=${worker.keyId}`)).map((row) => row.id)).toEqual([ids[4], ids[2]]);
      expect((await listAll(key, `&key_id=${worker.keyId}&model=sim/openai-model`)).map((row) => row.id)).toEqual([ids[2]]);
      expect((await listAll(key, `&from=${today()}&to=${today()}`)).map((row) => row.id)).toEqual(newestFirst);
      expect(await listAll(key, `&from=${formatUtcDay(Date.now() + dayMs)}`)).toEqual([]);
      expect(await listAll(key, `&to=${formatUtcDay(Date.now() - dayMs)}`)).toEqual([]);

      // An ordinary key sees its own requests only.
      expect((await listAll(worker.key)).map((row) => row.id)).toEqual([ids[4], ids[2]]);
      expect(await listAll(worker.key, `&key_id=${managementKeyId}`)).toEqual([]);
      expect((await get(worker.key, `/requests/${ids[2]}`)).status).toBe(200);
      const hidden = await get(worker.key, `/requests/${ids[0]}`);
      expect(hidden.status).toBe(404);
      expect(hidden.body.error.code).toBe('not_found');
      const workerUsage = (await get(worker.key, '/usage')).body.data;
      expect(workerUsage.by_key.map((row: Json) => row.key_id)).toEqual([worker.keyId]);
      expect(workerUsage.total.requests).toBe(2);

      // Another account sees nothing of this one.
      const stranger = await gateway.test.createAccount({ credits: 1 });
      expect((await get(stranger.key, `/requests/${ids[0]}`)).status).toBe(404);
      expect((await get(stranger.key, '/requests')).body).toEqual({ data: [], next_cursor: null });
      expect((await get(stranger.key, `/requests?key_id=${worker.keyId}`)).body.data).toEqual([]);
      expect((await get(stranger.key, '/usage')).body.data.total.requests).toBe(0);
      expect((await get(key, `/requests/req_${'0'.repeat(26)}`)).status).toBe(404);

      // The statistics add up to the log, whichever way they are cut.
      const usage = (await get(key, '/usage')).body.data;
      const logged = all.reduce((sum, row) => sum + usdToNano(row.cost), 0n);
      expect(usdToNano(usage.total.cost)).toBe(logged);
      expect(usage.total.requests).toBe(5);
      for (const grouping of ['by_day', 'by_model', 'by_provider', 'by_key']) {
        const rows = usage[grouping] as Json[];
        expect(rows.reduce((sum, row) => sum + usdToNano(row.cost), 0n)).toBe(logged);
        expect(rows.reduce((sum, row) => sum + row.requests, 0)).toBe(5);
        expect(rows.reduce((sum, row) => sum + row.prompt_tokens, 0)).toBe(usage.total.prompt_tokens);
      }
      expect(usage.by_key.map((row: Json) => row.key_id).sort()).toEqual([managementKeyId, worker.keyId].sort());
      expect(accountId).toMatch(/^acc_/);
    });

    it('serves /usage by day over a chosen range, inclusive, from the rollups', async () => {
      const { key, accountId } = await gateway.test.createAccount({ credits: 1 });
      const keyId = await keyIdOf(key);
      const base = Date.UTC(2026, 0, 15);
      const seeded = (at: number, cost: bigint, model = 'sim/openai-model') =>
        completedRecord(accountId, { id: createId('req', at), keyId, model, promptTokens: 3, completionTokens: 4, cost, createdAt: new Date(at).toISOString() });
      for (const record of [
        seeded(base - 1, 1n),
        seeded(base, 10n),
        seeded(base + dayMs - 1, 20n, 'sim/gemini-model'),
        seeded(base + dayMs, 30n),
        seeded(base + 2 * dayMs, 40n),
      ]) {
        await gateway.test.context.requestLog.record(record);
      }
      await flush();

      const usage = await get(key, '/usage?from=2026-01-15&to=2026-01-16');
      expect(usage.status).toBe(200);
      expect(usage.body.data.by_day).toEqual([
        { day: '2026-01-15', cost: 0.00000003, requests: 2, prompt_tokens: 6, completion_tokens: 8 },
        { day: '2026-01-16', cost: 0.00000003, requests: 1, prompt_tokens: 3, completion_tokens: 4 },
      ]);
      expect(usage.body.data.total).toEqual({ cost: 0.00000006, requests: 3, prompt_tokens: 9, completion_tokens: 12 });
      expect(usage.body.data.by_model).toEqual([
        { model: 'sim/openai-model', cost: 0.00000004, requests: 2, prompt_tokens: 6, completion_tokens: 8 },
        { model: 'sim/gemini-model', cost: 0.00000002, requests: 1, prompt_tokens: 3, completion_tokens: 4 },
      ]);
      // The default range is the last 30 days: January is outside it.
      expect((await get(key, '/usage')).body.data.total.requests).toBe(0);
      const listed = await listAll(key, '&from=2026-01-15&to=2026-01-16');
      expect(listed.map((row) => row.cost)).toEqual([0.00000003, 0.00000002, 0.00000001]);
    });

    it('refuses malformed dates, reversed and over-long ranges, and unknown parameters', async () => {
      const { key } = await gateway.test.createAccount({ credits: 1 });
      for (const query of ['from=2026-13-01', 'from=2026-02-30', 'to=21-11-2026', 'from=2026-11-21&to=2026-11-20', 'from=2025-01-01&to=2026-01-02', 'group=model']) {
        const response = await get(key, `/usage?${query}`);
        expect(response.status, query).toBe(400);
        expect(response.body.error.code).toBe('invalid_request');
      }
      expect((await get(key, '/usage?from=2025-01-01&to=2026-01-01')).status).toBe(200);
      for (const query of ['from=yesterday', 'from=2026-11-21&to=2026-11-20', 'status=lost', 'limit=501', 'limit=0', 'sort=asc']) {
        const response = await get(key, `/requests?${query}`);
        expect(response.status, query).toBe(400);
        expect(response.body.error.code).toBe('invalid_request');
      }
      expect((await get('sy_not-a-key', '/usage')).status).toBe(401);
      expect((await get('sy_not-a-key', '/requests')).status).toBe(401);
    });
  });
}
