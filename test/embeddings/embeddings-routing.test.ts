import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { embeddingOf } from '@switchyard/simulator';
import type { SimulatedGateway } from '../helpers/simulated-gateway.js';
import { call, readMoney, startEmbeddingsGateway, tokenCharge } from './embeddings-gateway.js';

type Envelope = { error: { message: string; code: unknown; param?: string | null } };

describe('embeddings: money, routing, splitting and refusals', () => {
  let gateway: SimulatedGateway;
  let client: OpenAI;
  beforeAll(async () => {
    gateway = await startEmbeddingsGateway();
    client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => gateway?.close());
  beforeEach(() => gateway.simulator.reset());

  it('refuses with 402 a balance too small for the input, before any provider is called', async () => {
    // 1,000 nano-USD: 'x' × 100,000 may count up to 100,008 tokens, 2,001 nano-USD at 0.02 per 1M.
    const poor = await gateway.test.createAccount({ credits: 0.000001 });
    const response = await call(gateway, poor.key, 'POST', '/v1/embeddings', { model: 'sim/embed-small', input: 'x'.repeat(100_000) });
    expect(response.status).toBe(402);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(((await response.json()) as Envelope).error.message).toBeTruthy();
    expect(gateway.simulator.stats().requests).toBe(0);
    expect((await readMoney(gateway, poor.accountId)).usage).toBe(0n);
    // The same account can afford a short input: the reservation follows the input's size.
    const short = await call(gateway, poor.key, 'POST', '/v1/embeddings', { model: 'sim/embed-small', input: 'tiny input' });
    expect(short.status).toBe(200);
    expect((await readMoney(gateway, poor.accountId)).usage).toBe(tokenCharge(2, 0.02));
  });

  it('falls back to the next endpoint on a 500, charged at the endpoint that served', async () => {
    gateway.simulator.setFault({ match: { protocol: 'openai', model: 'embed-twice-openai' }, fault: { status: 500 }, times: 1 });
    const before = await readMoney(gateway);
    const { data: answer, response } = await client.embeddings.create({ model: 'sim/embed-twice', input: ['one two', 'three'] }).withResponse();
    expect(response.headers.get('x-switchyard-provider')).toBe('sim-azure');
    expect(answer.data[1].embedding).toEqual(Array.from(embeddingOf('three', 1536)));
    expect(gateway.simulator.stats().protocols.openai.models).toMatchObject({ 'embed-twice-openai': 1, 'embed-twice-azure': 1 });
    const after = await readMoney(gateway);
    expect(after.usage - before.usage).toBe(tokenCharge(3, 0.02));
    expect(after.reserved).toBe(0n);
  });

  it('honours provider preferences as text does', async () => {
    const { response } = await client.embeddings
      .create({ model: 'sim/embed-twice', input: 'pick azure', provider: { order: ['sim-azure'] } } as OpenAI.EmbeddingCreateParams)
      .withResponse();
    expect(response.headers.get('x-switchyard-provider')).toBe('sim-azure');
    const ignored = await call(gateway, gateway.key, 'POST', '/v1/embeddings', { model: 'sim/embed-twice', input: 'x', provider: { only: ['nowhere'] } });
    expect(ignored.status).toBeGreaterThanOrEqual(400);
    expect(gateway.simulator.stats().protocols.openai.models['embed-twice-openai']).toBeUndefined();
  });

  it('splits 2,100 inputs into two upstream calls of at most 2,048, the vectors joined in order', async () => {
    const inputs = Array.from({ length: 2100 }, (_, index) => `input ${index}`);
    const before = await readMoney(gateway);
    const answer = await client.embeddings.create({ model: 'sim/embed-small', input: inputs, dimensions: 8 });
    expect(gateway.simulator.stats().protocols.openai.models['text-embedding-3-small']).toBe(2);
    expect(answer.data).toHaveLength(2100);
    expect(answer.data.map((entry) => entry.index)).toEqual(inputs.map((_, index) => index));
    for (const index of [0, 2047, 2048, 2099]) expect(answer.data[index].embedding).toEqual(Array.from(embeddingOf(inputs[index], 8)));
    expect(answer.usage.prompt_tokens).toBe(4200);
    expect((await readMoney(gateway)).usage - before.usage).toBe(tokenCharge(4200, 0.02));
  });

  it('fails the whole request when one part fails for good, charging nothing', async () => {
    gateway.simulator.setFault({ match: { protocol: 'openai', model: 'text-embedding-3-small' }, fault: { status: 400 }, times: 1 });
    const before = await readMoney(gateway);
    const response = await call(gateway, gateway.key, 'POST', '/v1/embeddings', { model: 'sim/embed-small', input: Array.from({ length: 2100 }, (_, index) => `n ${index}`), dimensions: 4 });
    expect(response.status).toBe(400);
    const after = await readMoney(gateway);
    expect(after.usage).toBe(before.usage);
    expect(after.reserved).toBe(0n);
  });

  it.each([
    [{ model: 'sim/embed-small' }, 'input'],
    [{ model: 'sim/embed-small', input: '' }, 'input'],
    [{ model: 'sim/embed-small', input: [] }, 'input'],
    [{ model: 'sim/embed-small', input: ['ok', ''] }, 'input[1]'],
    [{ model: 'sim/embed-small', input: [1, 2.5] }, 'input[1]'],
    [{ model: 'sim/embed-small', input: [[1, 2], [-3]] }, 'input[1][0]'],
    [{ model: 'sim/embed-small', input: ['a', { text: 'b' }] }, 'input[1]'],
    [{ model: 'sim/embed-small', input: Array.from({ length: 8193 }, () => 'a') }, 'input'],
    [{ model: 'sim/embed-small', input: 'a', dimensions: 0 }, 'dimensions'],
    [{ model: 'sim/embed-small', input: 'a', dimensions: 1.5 }, 'dimensions'],
    [{ model: 'sim/embed-small', input: 'a', encoding_format: 'hex' }, 'encoding_format'],
    [{ model: 'sim/embed-small', input: 'a', user: 7 }, 'user'],
    [{ model: 'sim/embed-small', input: 'a', temperature: 1 }, 'temperature'],
    [{ input: 'a' }, 'model'],
  ])('refuses %j with a 400 naming %s, in the envelope, before any provider call', async (body, param) => {
    const response = await call(gateway, gateway.key, 'POST', '/v1/embeddings', body);
    expect(response.status).toBe(400);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    const envelope = (await response.json()) as Envelope;
    expect(envelope.error.param).toBe(param);
    expect(envelope.error.message).toContain(param.split('[')[0]);
    expect(gateway.simulator.stats().requests).toBe(0);
  });

  it('refuses a model that makes no embeddings, in the envelope', async () => {
    const response = await call(gateway, gateway.key, 'POST', '/v1/embeddings', { model: 'sim/chat', input: 'a' });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(((await response.json()) as Envelope).error.message).toContain('/embeddings');
  });
});
