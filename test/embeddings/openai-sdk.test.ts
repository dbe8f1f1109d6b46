import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddingOf } from '@switchyard/simulator';
import type { SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';
import { adaPrice, call, readMoney, smallPrice, startEmbeddingsGateway, tokenCharge } from './embeddings-gateway.js';

const float32 = (values: Float32Array) => Array.from(values);

for (const database of testDatabases()) {
  describe(`POST /v1/embeddings through the openai SDK (${database.name})`, () => {
    let gateway: SimulatedGateway;
    let client: OpenAI;
    beforeAll(async () => {
      gateway = await startEmbeddingsGateway({ databaseUrl: database.url });
      client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    });
    afterAll(() => gateway?.close());

    it('embeds with the SDK defaults (base64 on the wire), the vectors the simulator made, charged tokens × price in the ledger, the log and /usage', async () => {
      const before = await readMoney(gateway);
      // The SDK with its defaults, watched on the way out only.
      const sent: unknown[] = [];
      const watched = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0, fetch: (url, init) => (sent.push(JSON.parse(String(init?.body))), fetch(url, init)) });
      {
        const { data: answer, response } = await watched.embeddings.create({ model: 'sim/embed-small', input: ['the quick brown fox', 'jumps over'] }).withResponse();
        expect(answer.data.map((entry) => entry.index)).toEqual([0, 1]);
        expect(answer.data[0].embedding).toEqual(float32(embeddingOf('the quick brown fox', 1536)));
        expect(answer.data[1].embedding).toEqual(float32(embeddingOf('jumps over', 1536)));
        expect(answer).toMatchObject({ object: 'list', model: 'sim/embed-small', usage: { prompt_tokens: 6, total_tokens: 6 } });
        const cost = tokenCharge(6, smallPrice);
        expect(response.headers.get('x-switchyard-cost')).toBe(String(Number(cost) / 1e9));
        expect(response.headers.get('x-switchyard-provider')).toBe('sim-openai');
        const requestId = response.headers.get('x-request-id')!;
        expect(requestId).toMatch(/^req_/);
        const after = await readMoney(gateway);
        expect(after.usage - before.usage).toBe(cost);
        expect(after.reserved).toBe(0n);
        await gateway.test.context.requestLog.flush();
        const logged = (await (await call(gateway, gateway.key, 'GET', `/v1/requests/${requestId}`)).json()) as { data: Record<string, unknown> };
        expect(logged.data).toMatchObject({ endpoint: '/embeddings', model: 'sim/embed-small', provider: 'sim-openai', usage: { prompt_tokens: 6, completion_tokens: 0, total_tokens: 6 }, cost: Number(cost) / 1e9 });
        const usage = (await (await call(gateway, gateway.key, 'GET', '/v1/usage')).json()) as { data: { by_model: Array<Record<string, unknown>> } };
        expect(usage.data.by_model.find((row) => row.model === 'sim/embed-small')).toMatchObject({ requests: 1, prompt_tokens: 6, completion_tokens: 0, cost: Number(cost) / 1e9 });
      }
      // The SDK's own default: it asks for base64 and decodes little-endian float32 itself.
      expect(sent).toEqual([{ model: 'sim/embed-small', input: ['the quick brown fox', 'jumps over'], encoding_format: 'base64' }]);
    });

    it("answers floats when asked, the same numbers as base64's float32", async () => {
      const answer = await client.embeddings.create({ model: 'sim/embed-small', input: 'hello world', encoding_format: 'float' });
      expect(answer.data[0].embedding).toEqual(float32(embeddingOf('hello world', 1536)));
      const raw = (await (await call(gateway, gateway.key, 'POST', '/v1/embeddings', { model: 'sim/embed-small', input: 'hello world', encoding_format: 'base64' })).json()) as { data: Array<{ embedding: string }> };
      const bytes = Buffer.from(raw.data[0].embedding, 'base64');
      expect(bytes.length).toBe(1536 * 4);
      expect(bytes.readFloatLE(4)).toBe(answer.data[0].embedding[1]);
    });

    it('takes token arrays, one or many, charged by their length', async () => {
      const before = await readMoney(gateway);
      const one = await client.embeddings.create({ model: 'sim/embed-small', input: [15339, 1917, 0] });
      expect(one.data).toHaveLength(1);
      expect(one.data[0].embedding).toEqual(float32(embeddingOf('tokens:15339,1917,0', 1536)));
      expect(one.usage.prompt_tokens).toBe(3);
      const many = await client.embeddings.create({ model: 'sim/embed-small', input: [[1, 2], [3, 4, 5, 6]] });
      expect(many.data.map((entry) => entry.embedding)).toEqual([float32(embeddingOf('tokens:1,2', 1536)), float32(embeddingOf('tokens:3,4,5,6', 1536))]);
      expect(many.usage.prompt_tokens).toBe(6);
      expect((await readMoney(gateway)).usage - before.usage).toBe(tokenCharge(3, smallPrice) + tokenCharge(6, smallPrice));
    });

    it('shortens vectors with dimensions where the model can, and refuses it naming the field where it cannot', async () => {
      const short = await client.embeddings.create({ model: 'sim/embed-small', input: 'short one', dimensions: 256 });
      expect(short.data[0].embedding).toEqual(float32(embeddingOf('short one', 256)));
      for (const [model, dimensions] of [['sim/embed-small', 2000], ['sim/embed-ada', 256]] as const) {
        const refused = await call(gateway, gateway.key, 'POST', '/v1/embeddings', { model, input: 'x', dimensions });
        expect(refused.status).toBe(400);
        expect(((await refused.json()) as { error: { param: string } }).error.param).toBe('dimensions');
      }
      // The model's own size is accepted, and not sent to a model that refuses the field.
      const before = await readMoney(gateway);
      const native = await client.embeddings.create({ model: 'sim/embed-ada', input: 'one two three', dimensions: 1536, encoding_format: 'float' });
      expect(native.data[0].embedding).toEqual(float32(embeddingOf('one two three', 1536)));
      expect(native.usage.prompt_tokens).toBe(3);
      expect((await readMoney(gateway)).usage - before.usage).toBe(tokenCharge(3, adaPrice));
    });

    it('serves Azure OpenAI, on the deployment URL and on v1', async () => {
      const deployment = await client.embeddings.create({ model: 'sim/embed-azure', input: ['on azure'], dimensions: 64 });
      expect(deployment.data[0].embedding).toEqual(float32(embeddingOf('on azure', 64)));
      const v1 = await client.embeddings.create({ model: 'sim/embed-azure-v1', input: 'on azure v1' });
      expect(v1.data[0].embedding).toEqual(float32(embeddingOf('on azure v1', 1536)));
    });
  });
}
