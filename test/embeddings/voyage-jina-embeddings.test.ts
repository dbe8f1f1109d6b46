import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { embedMany } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SimulatedGateway } from '../helpers/simulated-gateway.js';
import { jinaPrice, readAccountMoney, sendJson, startVoyageJinaGateway, tokenCharge, voyagePrice } from '../helpers/voyage-jina-gateway.js';

let gateway: SimulatedGateway;
beforeAll(async () => {
  gateway = await startVoyageJinaGateway();
});
afterAll(async () => {
  await gateway?.close();
});
beforeEach(() => gateway.simulator.reset());

const norm = (vector: number[]) => Math.sqrt(vector.reduce((total, value) => total + value * value, 0));

describe("the openai SDK's embeddings.create against Voyage and Jina models", () => {
  it('voyage/voyage-3.5: Voyage’s vectors and token count in OpenAI’s list, charged tokens × $0.06 per 1M exactly', async () => {
    const client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const before = await readAccountMoney(gateway);
    const input = ['sunny day at the beach', 'rainy day in the city of lights'];
    const { data, usage, model } = await client.embeddings.create({ model: 'voyage/voyage-3.5', input, dimensions: 512 });
    expect(model).toBe('voyage/voyage-3.5');
    expect(data.map((entry) => entry.index)).toEqual([0, 1]);
    expect(data.every((entry) => entry.embedding.length === 512)).toBe(true);
    expect(norm(data[0]!.embedding)).toBeCloseTo(1, 3);
    // The simulator's Voyage counts a token per word: 5 + 7.
    expect(usage).toMatchObject({ prompt_tokens: 12, total_tokens: 12 });
    expect(gateway.simulator.lastRequest('voyage')?.body).toEqual({ input, model: 'voyage-3.5', output_dimension: 512 });
    const after = await readAccountMoney(gateway);
    expect(after.usage - before.usage).toBe(tokenCharge(12, voyagePrice));
    expect(after.reserved).toBe(0n);
  });

  it('jina/jina-embeddings-v3: a Matryoshka size on request, charged tokens × $0.02 per 1M exactly', async () => {
    const client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const before = await readAccountMoney(gateway);
    const { data, usage } = await client.embeddings.create({ model: 'jina/jina-embeddings-v3', input: 'organic skincare for sensitive skin', dimensions: 64 });
    expect(data).toHaveLength(1);
    expect(data[0]!.embedding).toHaveLength(64);
    expect(usage.prompt_tokens).toBe(5);
    expect(gateway.simulator.lastRequest('jina')?.body).toMatchObject({ model: 'jina-embeddings-v3', input: ['organic skincare for sensitive skin'], dimensions: 64 });
    expect((await readAccountMoney(gateway)).usage - before.usage).toBe(tokenCharge(5, jinaPrice));
  });
});

describe("the AI SDK's embedMany over @ai-sdk/openai-compatible", () => {
  const provider = () => createOpenAICompatible({ name: 'switchyard', baseURL: `${gateway.url}/v1`, apiKey: gateway.key });

  it.each([
    ['voyage/voyage-3.5', voyagePrice, 1024],
    ['jina/jina-embeddings-v3', jinaPrice, 1024],
  ] as const)('%s: one vector per value in order, usage and the exact charge', async (model, price, size) => {
    const values = ['sunny day at the beach', 'rainy day in the city', 'snow'];
    const before = await readAccountMoney(gateway);
    const result = await embedMany({ model: provider().textEmbeddingModel(model), values, maxRetries: 0 });
    expect(result.embeddings).toHaveLength(3);
    expect(result.embeddings.every((vector) => vector.length === size)).toBe(true);
    // Deterministic per text: the same value embeds the same, different values differ.
    const again = await embedMany({ model: provider().textEmbeddingModel(model), values: ['snow'], maxRetries: 0 });
    expect(again.embeddings[0]).toEqual(result.embeddings[2]);
    expect(result.embeddings[0]).not.toEqual(result.embeddings[1]);
    expect(result.usage.tokens).toBe(11);
    expect((await readAccountMoney(gateway)).usage - before.usage).toBe(tokenCharge(11, price) + tokenCharge(1, price));
  });
});

describe('what Voyage and Jina cannot take', () => {
  it.each(['voyage/voyage-3.5', 'jina/jina-embeddings-v3'])('%s refuses token arrays naming input, before any provider call, charging nothing', async (model) => {
    const before = await readAccountMoney(gateway);
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/embeddings', { model, input: [[1, 2, 3]] });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { param?: string; message: string } };
    expect(body.error.param ?? body.error.message).toContain('input');
    expect(gateway.simulator.received()).toHaveLength(0);
    expect((await readAccountMoney(gateway)).usage).toBe(before.usage);
  });

  it('a size voyage-3.5 does not list is refused naming dimensions', async () => {
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/embeddings', { model: 'voyage/voyage-3.5', input: 'x', dimensions: 300 });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain('dimensions');
    expect(gateway.simulator.received()).toHaveLength(0);
  });
});
