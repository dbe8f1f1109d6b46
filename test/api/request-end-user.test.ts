import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';

// Node 20's fetch types answer `unknown`; these tests read the shapes they assert.
type Json = any;

// The end-user id each style carries (Messages `metadata.user_id`, Chat Completions and
// Responses `user` / `safety_identifier`), sent by the official SDKs, lands on the request log
// row and shows in GET /requests, on every database.
for (const database of testDatabases()) {
  describe(`end-user id on the request log on ${database.name}`, () => {
    let gateway: SimulatedGateway;
    let openai: OpenAI;
    let anthropic: Anthropic;
    // Unique per run: the PostgreSQL database outlives the suite.
    const tag = Math.random().toString(36).slice(2, 8);

    beforeAll(async () => {
      gateway = await startSimulatedGateway({ databaseUrl: database.url, credits: 100 });
      openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key, maxRetries: 0 });
      anthropic = new Anthropic({ baseURL: gateway.url, apiKey: gateway.key, maxRetries: 0 });
    });
    afterAll(async () => gateway?.close());

    const requestRow = async (id: string | null) => {
      expect(id).toMatch(/^req_/);
      await gateway.test.context.requestLog.flush();
      const response = await gateway.test.app.inject({ method: 'GET', url: `/v1/requests/${id}`, headers: { authorization: `Bearer ${gateway.key}` } });
      expect(response.statusCode).toBe(200);
      return (response.json() as Json).data;
    };

    it('records Chat Completions `user`, and `safety_identifier` over it', async () => {
      const plain = await openai.chat.completions
        .create({ model: 'sim/gemini-model', messages: [{ role: 'user', content: 'hi' }], user: `chat-user-${tag}` })
        .withResponse();
      expect((await requestRow(plain.response.headers.get('x-request-id'))).end_user).toBe(`chat-user-${tag}`);

      const both = await openai.chat.completions
        .create({ model: 'sim/anthropic-model', messages: [{ role: 'user', content: 'hi' }], user: 'old-style', safety_identifier: `safe-${tag}`, stream: true })
        .withResponse();
      for await (const chunk of both.data) void chunk;
      expect((await requestRow(both.response.headers.get('x-request-id'))).end_user).toBe(`safe-${tag}`);
    });

    it('records Responses `safety_identifier` and `user`', async () => {
      const safe = await openai.responses.create({ model: 'sim/anthropic-model', input: 'hi', safety_identifier: `resp-safe-${tag}` }).withResponse();
      expect((await requestRow(safe.response.headers.get('x-request-id'))).end_user).toBe(`resp-safe-${tag}`);
      const user = await openai.responses.create({ model: 'sim/openai-model', input: 'hi', user: `resp-user-${tag}` }).withResponse();
      expect((await requestRow(user.response.headers.get('x-request-id'))).end_user).toBe(`resp-user-${tag}`);
    });

    it('records Messages `metadata.user_id` on an anthropic- and a gemini-wire model', async () => {
      for (const model of ['sim/anthropic-model', 'sim/gemini-model']) {
        const { response } = await anthropic.messages
          .create({ model, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }], metadata: { user_id: `msg-${tag}-${model}` } })
          .withResponse();
        expect((await requestRow(response.headers.get('x-request-id'))).end_user).toBe(`msg-${tag}-${model}`);
      }
    });

    it('shows null without an end user, bounds long ids and makes them valid text', async () => {
      const none = await openai.chat.completions.create({ model: 'sim/openai-model', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
      expect((await requestRow(none.response.headers.get('x-request-id'))).end_user).toBeNull();

      const long = await openai.chat.completions
        .create({ model: 'sim/openai-model', messages: [{ role: 'user', content: 'hi' }], user: `x${'y'.repeat(400)}` })
        .withResponse();
      expect((await requestRow(long.response.headers.get('x-request-id'))).end_user).toBe(`x${'y'.repeat(255)}`);

      // PostgreSQL refuses NUL in text; the row must still be written, with U+FFFD in its place.
      const nul = await openai.chat.completions
        .create({ model: 'sim/openai-model', messages: [{ role: 'user', content: 'hi' }], user: `nul\u0000${tag}` })
        .withResponse();
      expect((await requestRow(nul.response.headers.get('x-request-id'))).end_user).toBe(`nul\ufffd${tag}`);
    });

    it('filters GET /requests by end_user', async () => {
      const ids: string[] = [];
      for (const user of [`filter-a-${tag}`, `filter-b-${tag}`, `filter-a-${tag}`]) {
        const { response } = await openai.chat.completions.create({ model: 'sim/openai-model', messages: [{ role: 'user', content: 'hi' }], user }).withResponse();
        ids.push(response.headers.get('x-request-id')!);
      }
      await gateway.test.context.requestLog.flush();
      const response = await gateway.test.app.inject({
        method: 'GET',
        url: `/v1/requests?end_user=filter-a-${tag}`,
        headers: { authorization: `Bearer ${gateway.key}` },
      });
      expect(response.statusCode).toBe(200);
      const rows = (response.json() as Json).data as Json[];
      expect(rows.map((row) => row.id)).toEqual([ids[2], ids[0]]);
      expect(rows.every((row) => row.end_user === `filter-a-${tag}`)).toBe(true);

      const tooLong = await gateway.test.app.inject({ method: 'GET', url: `/v1/requests?end_user=${'z'.repeat(257)}`, headers: { authorization: `Bearer ${gateway.key}` } });
      expect(tooLong.statusCode).toBe(400);
      expect(JSON.stringify(tooLong.json())).toContain('end_user');
    });
  });
}
