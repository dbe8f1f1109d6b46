import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { countTextTokens } from '../../src/billing/count-tokens.js';
import { readAccountMoney, sendJson, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';
import { startModerationGateway } from './moderation-gateway.js';

/** The omni models' thirteen categories, as OpenAI's reference lists them. */
const omniCategories = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/instructions',
  'self-harm/intent',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
];

async function chargesOf(gateway: SimulatedGateway, requestId: string): Promise<bigint[]> {
  const rows = await gateway.test.context.store.db.selectFrom('ledger_entries').select(['amount', 'kind']).where('request_id', '=', requestId).execute();
  return rows.filter((row) => row.kind === 'charge').map((row) => BigInt(row.amount));
}

for (const database of testDatabases()) {
  describe(`POST /v1/moderations (${database.name})`, () => {
    let gateway: SimulatedGateway;
    let client: OpenAI;

    beforeAll(async () => {
      gateway = await startModerationGateway({ databaseUrl: database.url });
      client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    });
    afterAll(() => gateway?.close());

    it('moderates a string through the OpenAI SDK with the default model, free: charged 0 and logged with the counted tokens', async () => {
      const before = await readAccountMoney(gateway);
      const { data, response } = await client.moderations.create({ input: 'I like sunny days.' }).withResponse();
      const requestId = response.headers.get('x-request-id')!;
      expect(data.id).toBe(requestId);
      expect(data.model).toBe('openai/omni-moderation-latest');
      expect(data.results).toHaveLength(1);
      expect(data.results[0].flagged).toBe(false);
      expect(Object.keys(data.results[0].categories).sort()).toEqual(omniCategories);
      expect(Object.keys(data.results[0].category_scores).sort()).toEqual(omniCategories);
      expect(data.results[0].category_applied_input_types.violence).toEqual(['text']);
      expect(response.headers.get('x-switchyard-cost')).toBe('0');
      expect(response.headers.get('x-switchyard-provider')).toBe('sim-openai');
      const after = await readAccountMoney(gateway);
      expect(after.usage).toBe(before.usage);
      expect(after.reserved).toBe(0n);
      // A charge of 0 writes no ledger entry.
      expect(await chargesOf(gateway, requestId)).toEqual([]);
      await gateway.test.context.requestLog.flush();
      const logged = (await (await sendJson(gateway, gateway.key, 'GET', `/v1/requests/${requestId}`)).json()) as { data: Record<string, unknown> };
      expect(logged.data).toMatchObject({ endpoint: '/moderations', model: 'openai/omni-moderation-latest', cost: 0, usage: { prompt_tokens: await countTextTokens('I like sunny days.'), completion_tokens: 0 } });
    });

    it('answers one result per string of an array, flagging the one with a trigger word', async () => {
      const moderation = await client.moderations.create({ model: 'openai/omni-moderation-latest', input: ['A calm lake.', 'I will kill them.'] });
      expect(moderation.results.map((result) => result.flagged)).toEqual([false, true]);
      expect(moderation.results[1].categories.violence).toBe(true);
      expect(moderation.results[1].category_scores.violence).toBeGreaterThan(0.9);
    });

    it('moderates an image with text as one input; the image URL goes to the provider as given', async () => {
      const url = 'https://example.com/gore.png';
      const moderation = await client.moderations.create({
        model: 'openai/omni-moderation-latest',
        input: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image_url', image_url: { url } },
        ],
      });
      expect(moderation.results).toHaveLength(1);
      const [result] = moderation.results;
      expect(result.flagged).toBe(true);
      expect(result.categories['violence/graphic']).toBe(true);
      expect(result.category_applied_input_types.violence).toEqual(['text', 'image']);
      expect(result.category_applied_input_types.hate).toEqual(['text']);
    });

    it('charges a priced moderation model exactly its tokens × price, having reserved the input bytes at that price', async () => {
      const text = 'Moderate this sentence, please — ünïcode too.';
      const reserve = vi.spyOn(gateway.test.context.ledger, 'reserve');
      let reserved: bigint;
      const before = await readAccountMoney(gateway);
      const { response } = await client.moderations.create({ model: 'sim/priced-moderation', input: [text, text] }).withResponse();
      try {
        reserved = reserve.mock.calls.at(-1)![0].amount;
      } finally {
        reserve.mockRestore();
      }
      // 2 USD per 1M tokens = 2,000 nano-USD a token: the product is exact, no rounding.
      const tokens = 2 * (await countTextTokens(text));
      const cost = BigInt(tokens) * 2_000n;
      expect(reserved).toBe(BigInt(2 * Buffer.byteLength(text)) * 2_000n);
      expect(cost).toBeGreaterThan(0n);
      expect(response.headers.get('x-switchyard-cost')).toBe(String(Number(cost) / 1e9));
      const after = await readAccountMoney(gateway);
      expect(after.usage - before.usage).toBe(cost);
      expect(after.reserved).toBe(0n);
      expect(await chargesOf(gateway, response.headers.get('x-request-id')!)).toEqual([cost]);
    });

    it('refuses a priced moderation beyond the funds with 402 before calling the provider', async () => {
      const poor = await gateway.test.createAccount({ credits: 0 });
      const requestsBefore = gateway.simulator.stats().requests;
      const response = await sendJson(gateway, poor.key, 'POST', '/v1/moderations', { model: 'sim/priced-moderation', input: 'hello there' });
      expect(response.status).toBe(402);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('insufficient_balance');
      expect(gateway.simulator.stats().requests).toBe(requestsBefore);
    });

    it('refuses bad input in the envelope, naming the field, without calling the provider', async () => {
      const requestsBefore = gateway.simulator.stats().requests;
      const cases: Array<[unknown, string]> = [
        [{ input: '' }, 'input'],
        [{ input: [] }, 'input'],
        [{}, 'input'],
        [{ input: ['ok', ''] }, 'input'],
        [{ input: ['text', { type: 'text', text: 'mixed' }] }, 'input[0]'],
        [{ input: [{ type: 'image_url', image_url: { url: 'ftp://example.com/a.png' } }] }, 'input[0].image_url.url'],
        [{ input: [{ type: 'audio', audio: 'x' }] }, 'input[0].type'],
        [{ model: 'sim/text-moderation', input: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }, 'input'],
        [{ input: 'hi', temperature: 1 }, 'temperature'],
      ];
      for (const [body, param] of cases) {
        const response = await sendJson(gateway, gateway.key, 'POST', '/v1/moderations', body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        const answer = (await response.json()) as { error: { code: string; param: string; type: string; metadata: { request_id: string } } };
        expect(answer.error, JSON.stringify(body)).toMatchObject({ code: 'invalid_request', param, type: 'invalid_request_error' });
        expect(answer.error.metadata.request_id).toBe(response.headers.get('x-request-id'));
      }
      expect(gateway.simulator.stats().requests).toBe(requestsBefore);
    });

    it('raises the SDK error class with the envelope for a model that does not moderate, naming /moderations', async () => {
      for (const model of ['sim/nope', 'sim/chat']) {
        const error = (await client.moderations.create({ model, input: 'x' }).catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
        expect(error).toBeInstanceOf(OpenAI.APIError);
        expect(error.status).toBe(503);
        expect((error.error as { code: string }).code).toBe('no_available_provider');
        expect(error.message).toContain('/moderations');
      }
    });

    it('answers a provider failure in the envelope and releases the reservation', async () => {
      const before = await readAccountMoney(gateway);
      const response = await sendJson(gateway, gateway.key, 'POST', '/v1/moderations', { model: 'sim/priced-moderation', input: '[[sim:status=500]] hello' });
      expect(response.status).toBeGreaterThanOrEqual(500);
      const body = (await response.json()) as { error: { code: string; metadata: { request_id: string } } };
      expect(body.error.code).toBeTruthy();
      expect(body.error.metadata.request_id).toBe(response.headers.get('x-request-id'));
      const after = await readAccountMoney(gateway);
      expect(after).toEqual(before);
    });

    it('never routes a moderation to Azure OpenAI, which has no moderations API', async () => {
      const { response } = await client.moderations.create({ input: 'hello', provider: { order: ['sim-azure'] } } as never).withResponse();
      expect(response.headers.get('x-switchyard-provider')).toBe('sim-openai');
      const refused = await sendJson(gateway, gateway.key, 'POST', '/v1/moderations', { model: 'sim/azure-only-moderation', input: 'hello' });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("has no provider that can moderate");
    });

    it('moderates text on a text-only moderation model (text-moderation answers no applied input types)', async () => {
      const moderation = await client.moderations.create({ model: 'sim/text-moderation', input: 'They hate it.' });
      expect(moderation.model).toBe('sim/text-moderation');
      expect(moderation.results[0].flagged).toBe(true);
      expect(moderation.results[0].categories.hate).toBe(true);
      expect(moderation.results[0]).not.toHaveProperty('category_applied_input_types');
    });
  });
}
