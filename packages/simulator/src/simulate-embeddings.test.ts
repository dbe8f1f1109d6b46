import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddingOf } from './simulate-embeddings.js';
import { startSimulator } from './start-simulator.js';
import type { Simulator } from './simulator-types.js';

describe('the simulated OpenAI and Azure /embeddings', () => {
  let simulator: Simulator;
  beforeAll(async () => {
    simulator = await startSimulator({ apiKey: 'k' });
  });
  afterAll(() => simulator.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = { authorization: 'Bearer k' }) =>
    fetch(`${simulator.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('answers unit vectors of the asked size, the same for the same text, float or base64, one token per word', async () => {
    const response = await post('/openai/v1/embeddings', { model: 'text-embedding-3-small', input: ['a b c', 'a b c', 'd'], dimensions: 16 });
    const body = (await response.json()) as { data: Array<{ index: number; embedding: number[] }>; usage: { prompt_tokens: number } };
    expect(body.data.map((entry) => entry.index)).toEqual([0, 1, 2]);
    expect(body.data[0].embedding).toHaveLength(16);
    expect(body.data[0].embedding).toEqual(body.data[1].embedding);
    expect(body.data[0].embedding).not.toEqual(body.data[2].embedding);
    expect(Math.hypot(...body.data[0].embedding)).toBeCloseTo(1, 5);
    expect(body.usage.prompt_tokens).toBe(7);
    const encoded = (await (await post('/openai/v1/embeddings', { model: 'text-embedding-3-small', input: 'a b c', dimensions: 16, encoding_format: 'base64' })).json()) as { data: Array<{ embedding: string }> };
    const bytes = Buffer.from(encoded.data[0].embedding, 'base64');
    expect(Array.from({ length: bytes.length / 4 }, (_, index) => bytes.readFloatLE(index * 4))).toEqual(body.data[0].embedding);
    expect(Array.from(embeddingOf('a b c', 16))).toEqual(body.data[0].embedding);
  });

  it("refuses what OpenAI refuses: dimensions on ada-002, sizes over the model's, empty input", async () => {
    expect((await post('/openai/v1/embeddings', { model: 'text-embedding-ada-002', input: 'x', dimensions: 8 })).status).toBe(400);
    expect((await post('/openai/v1/embeddings', { model: 'text-embedding-3-small', input: 'x', dimensions: 1537 })).status).toBe(400);
    expect((await post('/openai/v1/embeddings', { model: 'text-embedding-3-small', input: '' })).status).toBe(400);
    expect((await post('/openai/v1/embeddings', { model: 'text-embedding-3-small', input: 'x' }, { authorization: 'Bearer wrong' })).status).toBe(401);
  });

  it("serves Azure's deployment URL (with api-version, api-key header) and counts it in the stats", async () => {
    simulator.reset();
    const response = await post('/azure/openai/deployments/my-embed/embeddings?api-version=2024-10-21', { input: 'x' }, { 'api-key': 'k' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { model: string }).model).toBe('my-embed');
    expect((await post('/azure/openai/deployments/my-embed/embeddings', { input: 'x' }, { 'api-key': 'k' })).status).toBe(404);
    expect(simulator.stats().protocols.openai.models['my-embed']).toBe(1);
  });

  it('takes fault rules and status directives like the other media routes', async () => {
    simulator.setFault({ match: { protocol: 'openai', model: 'text-embedding-3-small' }, fault: { status: 503 }, times: 1 });
    expect((await post('/openai/v1/embeddings', { model: 'text-embedding-3-small', input: 'x' })).status).toBe(503);
    expect((await post('/openai/v1/embeddings', { model: 'text-embedding-3-small', input: ['ok', 'x [[sim:status=429]]'] })).status).toBe(429);
  });
});
