import { createServer, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../config/types.js';
import { UpstreamError } from '../../errors/upstream-error.js';
import { closeServer, listenLocally } from '../shared/__fixtures__/listen-locally.js';
import { createProviderDispatcher } from '../shared/send-request.js';
import { readFixture } from './__fixtures__/read-fixture.js';
import { geminiEmbeddingAdapter, vertexBatches } from './embed-content.js';

interface Seen {
  url: string;
  body: Record<string, unknown>;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

/** A provider at a local server answering each POST with `answer(body)` (status, JSON text). */
async function serve(answer: (seen: Seen) => [number, string], platform?: ProviderConfig['platform']) {
  const seen: Seen[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      const entry = { url: request.url ?? '', body: JSON.parse(text) as Record<string, unknown> };
      seen.push(entry);
      const [status, body] = answer(entry);
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(body);
    });
  });
  const baseUrl = await listenLocally(server);
  const provider: ProviderConfig = {
    id: 'google', name: 'Google', api: 'gemini', baseUrl: platform ? baseUrl : `${baseUrl}/v1beta`, auth: { kind: 'api-key-header', header: 'x-goog-api-key', key: 'k' },
    enabled: true, headers: {}, timeouts: { connectMs: 1000, firstByteMs: 2000, idleMs: 2000 }, ...(platform && { platform }),
  };
  const dispatcher = createProviderDispatcher(provider);
  closers.push(async () => {
    await dispatcher.close();
    await closeServer(server);
  });
  return { seen, context: (providerModel: string) => ({ provider, providerModel, signal: new AbortController().signal, dispatcher }) };
}

describe('Gemini embeddings on Google AI Studio (batchEmbedContents)', () => {
  it('sends one request per input naming the model, with task type, title and size, and marks the usage estimated when Gemini reports none', async () => {
    const { seen, context } = await serve(({ body }) => [200, JSON.stringify({ embeddings: (body.requests as unknown[]).map((_, index) => ({ values: [index, 0.5, -0.5] })) })]);
    const result = await geminiEmbeddingAdapter.embed({ inputs: ['a', 'b'], dimensions: 3, task: 'retrieval_document', title: 'Doc' }, context('gemini-embedding-001'));
    expect(seen[0].url).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    expect(seen[0].body).toEqual({
      requests: ['a', 'b'].map((text) => ({ model: 'models/gemini-embedding-001', content: { parts: [{ text }] }, taskType: 'RETRIEVAL_DOCUMENT', title: 'Doc', outputDimensionality: 3 })),
    });
    expect(result).toEqual({ vectors: [[0, 0.5, -0.5], [1, 0.5, -0.5]], promptTokens: 0, estimated: true });
  });

  it('takes usageMetadata.promptTokenCount where Gemini sends it (recorded answer)', async () => {
    const { context } = await serve(() => [200, readFixture('batch-embed-usage.json')]);
    const result = await geminiEmbeddingAdapter.embed({ inputs: ['one', 'two'] }, context('gemini-embedding-2'));
    expect(result).toEqual({ vectors: [[0.5138951, 0.857853], [-0.5045317, -0.8633931]], promptTokens: 12, estimated: false });
  });

  it("rejects Gemini's recorded 400 for a batch over 100 as a non-retryable UpstreamError, and keeps each call within 100", async () => {
    expect(geminiEmbeddingAdapter.maxInputsPerCall('gemini-embedding-001')).toBe(100);
    const { context } = await serve(() => [400, readFixture('batch-embed-limit-error.json')]);
    const failure = await geminiEmbeddingAdapter.embed({ inputs: ['x'] }, context('gemini-embedding-001')).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ status: 400, retryable: false, message: expect.stringMatching(/at most 100 requests/) });
  });

  it('refuses token arrays, naming input', () => {
    expect(geminiEmbeddingAdapter.incapability({ inputs: ['ok', [1, 2, 3]] }, 'gemini-embedding-001')).toEqual({ field: 'input', reason: expect.stringMatching(/text/) });
    expect(geminiEmbeddingAdapter.incapability({ inputs: ['ok'] }, 'gemini-embedding-001')).toBeUndefined();
  });

  it('fails an answer with fewer vectors than inputs as a protocol error', async () => {
    const { context } = await serve(() => [200, JSON.stringify({ embeddings: [{ values: [1] }] })]);
    await expect(geminiEmbeddingAdapter.embed({ inputs: ['a', 'b'] }, context('gemini-embedding-001'))).rejects.toThrow(/1 embeddings for 2 inputs/);
  });
});

describe('Gemini embeddings on Vertex AI (:predict)', () => {
  const vertex = { kind: 'vertex' as const, project: 'p', location: 'global' };

  it("replays Vertex's recorded answer: vectors, and the usage from statistics.token_count", async () => {
    const { seen, context } = await serve(() => [200, readFixture('vertex-predict-embeddings.json')], vertex);
    const result = await geminiEmbeddingAdapter.embed({ inputs: ['sunny day at the beach', 'rainy day in the city'], dimensions: 768, task: 'retrieval_query' }, context('text-embedding-005'));
    expect(seen).toHaveLength(1);
    expect(seen[0].url).toBe('/v1/projects/p/locations/global/publishers/google/models/text-embedding-005:predict');
    expect(seen[0].body).toEqual({
      instances: [{ content: 'sunny day at the beach', task_type: 'RETRIEVAL_QUERY' }, { content: 'rainy day in the city', task_type: 'RETRIEVAL_QUERY' }],
      parameters: { outputDimensionality: 768 },
    });
    expect(result.promptTokens).toBe(11);
    expect(result.estimated).toBe(false);
    expect(result.vectors.map((vector) => vector.length)).toEqual([5, 5]);
    expect(result.vectors[0][0]).toBe(-0.017999587580561638);
  });

  it('sends gemini-embedding-001 one instance a call, as Vertex requires, and joins the answers in order', async () => {
    const { seen, context } = await serve(({ body }) => {
      const [instance] = body.instances as Array<{ content: string }>;
      return [200, JSON.stringify({ predictions: [{ embeddings: { values: [instance.content.length], statistics: { token_count: 2, truncated: false } } }] })];
    }, vertex);
    const result = await geminiEmbeddingAdapter.embed({ inputs: ['a', 'bb', 'ccc'] }, context('gemini-embedding-001'));
    expect(seen).toHaveLength(3);
    expect(seen.every((entry) => (entry.body.instances as unknown[]).length === 1)).toBe(true);
    expect(result).toEqual({ vectors: [[1], [2], [3]], promptTokens: 6, estimated: false });
  });

  it('splits other models at 250 instances and at 20,000 tokens reckoned generously', () => {
    expect(vertexBatches(Array.from({ length: 600 }, () => 'x'), 'text-embedding-005').map((batch) => batch.length)).toEqual([250, 250, 100]);
    const long = 'y'.repeat(30_000); // 10,000 tokens at three bytes a token
    expect(vertexBatches([long, long, long], 'text-embedding-005').map((batch) => batch.length)).toEqual([2, 1]);
    expect(vertexBatches(['a', 'b'], 'gemini-embedding-001')).toEqual([['a'], ['b']]);
  });
});
