import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from './start-simulator.js';
import type { Simulator } from './simulator-types.js';

let simulator: Simulator;
beforeAll(async () => {
  simulator = await startSimulator({ apiKey: 'sim-key' });
});
afterAll(async () => simulator.close());

async function post(path: string, body: unknown, headers: Record<string, string> = { 'x-goog-api-key': 'sim-key' }) {
  const response = await fetch(`${simulator.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const norm = (values: number[]) => Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));

describe('Gemini embeddings in the simulator', () => {
  it('answers embedContent with a deterministic unit vector of 3072 for gemini-embedding-001', async () => {
    const request = { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'hello world' }] } };
    const first = await post('/gemini/v1beta/models/gemini-embedding-001:embedContent', request);
    const again = await post('/gemini/v1beta/models/gemini-embedding-001:embedContent', request);
    expect(first.status).toBe(200);
    expect(first.body.embedding.values).toHaveLength(3072);
    expect(norm(first.body.embedding.values)).toBeCloseTo(1, 5);
    expect(again.body).toEqual(first.body);
    expect(first.body).not.toHaveProperty('usageMetadata');
  });

  it('cuts to outputDimensionality (the prefix of the full vector) and varies with the task type', async () => {
    const base = { content: { parts: [{ text: 'hello world' }] } };
    const full = await post('/gemini/v1beta/models/gemini-embedding-001:embedContent', base);
    const small = await post('/gemini/v1beta/models/gemini-embedding-001:embedContent', { ...base, outputDimensionality: 8 });
    const query = await post('/gemini/v1beta/models/gemini-embedding-001:embedContent', { ...base, taskType: 'RETRIEVAL_QUERY' });
    expect(small.body.embedding.values).toEqual(full.body.embedding.values.slice(0, 8));
    expect(query.body.embedding.values).not.toEqual(full.body.embedding.values);
  });

  it('answers batchEmbedContents in order, and refuses more than 100, a request for another model, a bad task type or size', async () => {
    const one = (text: string) => ({ model: 'models/gemini-embedding-001', content: { parts: [{ text }] }, outputDimensionality: 4 });
    const batch = await post('/gemini/v1beta/models/gemini-embedding-001:batchEmbedContents', { requests: [one('a'), one('b')] });
    expect(batch.body.embeddings.map((entry: { values: number[] }) => entry.values.length)).toEqual([4, 4]);
    const single = await post('/gemini/v1beta/models/gemini-embedding-001:embedContent', { content: { parts: [{ text: 'b' }] }, outputDimensionality: 4 });
    expect(batch.body.embeddings[1].values).toEqual(single.body.embedding.values);

    const tooMany = await post('/gemini/v1beta/models/gemini-embedding-001:batchEmbedContents', { requests: Array.from({ length: 101 }, () => one('x')) });
    expect(tooMany).toMatchObject({ status: 400, body: { error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringMatching(/at most 100 requests/) } } });
    const other = await post('/gemini/v1beta/models/gemini-embedding-001:batchEmbedContents', { requests: [{ ...one('x'), model: 'models/other' }] });
    expect(other.status).toBe(400);
    const task = await post('/gemini/v1beta/models/gemini-embedding-001:embedContent', { content: { parts: [{ text: 'x' }] }, taskType: 'NOPE' });
    expect(task.status).toBe(400);
    const size = await post('/gemini/v1beta/models/gemini-embedding-001:embedContent', { content: { parts: [{ text: 'x' }] }, outputDimensionality: 4000 });
    expect(size.status).toBe(400);
  });

  it("refuses a wrong key as Gemini does (400 API_KEY_INVALID), takes ?key=, and answers a directive's status", async () => {
    const bad = await post('/gemini/v1beta/models/gemini-embedding-001:embedContent', { content: { parts: [{ text: 'x' }] } }, { 'x-goog-api-key': 'wrong' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].reason).toBe('API_KEY_INVALID');
    const keyed = await post('/gemini/v1beta/models/gemini-embedding-001:embedContent?key=sim-key', { content: { parts: [{ text: 'x' }] } }, {});
    expect(keyed.status).toBe(200);
    const directed = await post('/gemini/v1beta/models/gemini-embedding-001:embedContent', { content: { parts: [{ text: 'x [[sim:status=503]]' }] } });
    expect(directed).toMatchObject({ status: 503, body: { error: { status: 'UNAVAILABLE' } } });
  });

  it('takes fault rules for the model', async () => {
    simulator.setFault({ match: { protocol: 'gemini', model: 'gemini-embedding-001' }, fault: { status: 429, retry_after: 2 }, times: 1 });
    const limited = await post('/gemini/v1beta/models/gemini-embedding-001:embedContent', { content: { parts: [{ text: 'x' }] } });
    expect(limited.status).toBe(429);
    const next = await post('/gemini/v1beta/models/gemini-embedding-001:embedContent', { content: { parts: [{ text: 'x' }] } });
    expect(next.status).toBe(200);
  });

  it("answers Vertex's :predict with token_count, 768 values for text-embedding-005, and one instance only for gemini-embedding-001", async () => {
    const path = (model: string) => `/vertex/v1/projects/p/locations/global/publishers/google/models/${model}:predict`;
    const answer = await post(path('text-embedding-005'), { instances: [{ content: 'one two three', task_type: 'RETRIEVAL_DOCUMENT', title: 'T' }, { content: 'four' }] });
    expect(answer.status).toBe(200);
    expect(answer.body.predictions.map((prediction: any) => [prediction.embeddings.values.length, prediction.embeddings.statistics.token_count])).toEqual([[768, 3], [768, 1]]);
    const cut = await post(path('gemini-embedding-001'), { instances: [{ content: 'x' }], parameters: { outputDimensionality: 16 } });
    expect(cut.body.predictions[0].embeddings.values).toHaveLength(16);
    const two = await post(path('gemini-embedding-001'), { instances: [{ content: 'x' }, { content: 'y' }] });
    expect(two.status).toBe(400);
  });
});
