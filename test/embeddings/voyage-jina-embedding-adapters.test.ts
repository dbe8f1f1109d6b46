import { startSimulator, type Simulator } from '@switchyard/simulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/errors/upstream-error.js';
import { jinaEmbeddingAdapter } from '../../src/providers/jina/create-embeddings.js';
import { embeddingAdapterOf } from '../../src/providers/retrieval-adapters.js';
import { splitUnderTokenBound, voyageEmbeddingAdapter } from '../../src/providers/voyage/create-embeddings.js';
import { closeRetrievalDispatchers, retrievalCallContext } from '../helpers/retrieval-call-context.js';

let simulator: Simulator;

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: 'sim-key' });
});
afterAll(async () => {
  await simulator.close();
  await closeRetrievalDispatchers();
});
beforeEach(() => simulator.reset());

const voyage = (model = 'voyage-3.5', token?: string) => retrievalCallContext('voyage', simulator.baseUrls.voyage, model, token);
const jina = (model = 'jina-embeddings-v3', token?: string) => retrievalCallContext('jina', simulator.baseUrls.jina, model, token);

describe('voyage embeddings adapter', () => {
  it('is registered for the voyage protocol', () => {
    expect(embeddingAdapterOf('voyage')).toBe(voyageEmbeddingAdapter);
    expect(voyageEmbeddingAdapter.maxInputsPerCall('voyage-3.5')).toBe(1000);
  });

  it('sends input, input_type and output_dimension, and reads one vector per input with Voyage’s token count', async () => {
    const result = await voyageEmbeddingAdapter.embed({ inputs: ['red apples', 'green pears are sweet'], task: 'retrieval_query', dimensions: 256 }, voyage());
    const sent = simulator.lastRequest('voyage');
    expect(sent?.path).toBe('/voyage/v1/embeddings');
    expect(sent?.headers.authorization).toBe('Bearer sim-key');
    expect(sent?.body).toEqual({ input: ['red apples', 'green pears are sweet'], model: 'voyage-3.5', input_type: 'query', output_dimension: 256 });
    expect(result.vectors).toHaveLength(2);
    expect(result.vectors.every((vector) => vector.length === 256)).toBe(true);
    // The simulator counts one token per word: 2 + 4.
    expect(result).toMatchObject({ promptTokens: 6, estimated: false });
  });

  it('maps the canonical tasks onto query, document or none', async () => {
    await voyageEmbeddingAdapter.embed({ inputs: ['a'], task: 'retrieval_document' }, voyage());
    expect(simulator.lastRequest('voyage')?.body).toMatchObject({ input_type: 'document' });
    await voyageEmbeddingAdapter.embed({ inputs: ['a'], task: 'clustering' }, voyage());
    expect(simulator.lastRequest('voyage')?.body).not.toHaveProperty('input_type');
  });

  it('refuses token-array inputs naming input', () => {
    expect(voyageEmbeddingAdapter.incapability({ inputs: ['text', [1, 2, 3]] }, 'voyage-3.5')).toEqual({ field: 'input', reason: expect.stringContaining('token arrays') });
    expect(voyageEmbeddingAdapter.incapability({ inputs: ['text'] }, 'voyage-3.5')).toBeUndefined();
  });

  it('splits a request over the per-call token bound and adds up the calls’ tokens', async () => {
    expect(splitUnderTokenBound(['aaaa', 'bbbb', 'cccc'], 2 * (4 + 32))).toEqual([['aaaa', 'bbbb'], ['cccc']]);
    // voyage-law-2's bound is 120K tokens; three inputs of 50K bytes need two calls.
    const long = (word: string) => `${word} `.repeat(10_000);
    const result = await voyageEmbeddingAdapter.embed({ inputs: [long('one'), long('two'), long('six')] }, voyage('voyage-law-2'));
    expect(simulator.received().filter((entry) => entry.protocol === 'voyage')).toHaveLength(2);
    expect(result.vectors).toHaveLength(3);
    expect(result.promptTokens).toBe(30_000);
  });

  it('reads Voyage’s detail error body, keeping the status', async () => {
    const error = await voyageEmbeddingAdapter.embed({ inputs: ['a'], dimensions: 300 }, voyage()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).status).toBe(400);
    expect((error as UpstreamError).message).toBe('voyage answered 400: output_dimension 300 is not supported by voyage-3.5; supported: 256, 512, 1024, 2048');
    const denied = await voyageEmbeddingAdapter.embed({ inputs: ['a'] }, voyage('voyage-3.5', 'wrong')).catch((caught: unknown) => caught);
    expect(denied).toMatchObject({ status: 401, message: 'voyage answered 401: Provided API key is invalid.' });
  });

  it('takes the simulator’s fault rules: a 429 is retryable with its retry-after', async () => {
    simulator.setFault({ match: { protocol: 'voyage' }, fault: { status: 429, retry_after: 2 }, times: 1 });
    const error = (await voyageEmbeddingAdapter.embed({ inputs: ['a'] }, voyage()).catch((caught: unknown) => caught)) as UpstreamError;
    expect(error).toMatchObject({ status: 429, retryable: true, code: 'rate_limited', retryAfterSeconds: 2 });
  });
});

describe('jina embeddings adapter', () => {
  it('is registered for the jina protocol', () => {
    expect(embeddingAdapterOf('jina')).toBe(jinaEmbeddingAdapter);
  });

  it('sends task, dimensions and embedding_type float, and reads usage.total_tokens', async () => {
    const result = await jinaEmbeddingAdapter.embed({ inputs: ['organic skincare', 'new makeup trends today'], task: 'retrieval_document', dimensions: 64 }, jina());
    expect(simulator.lastRequest('jina')?.body).toEqual({ model: 'jina-embeddings-v3', input: ['organic skincare', 'new makeup trends today'], embedding_type: 'float', task: 'retrieval.passage', dimensions: 64 });
    expect(simulator.lastRequest('jina')?.path).toBe('/jina/v1/embeddings');
    expect(result.vectors.map((vector) => vector.length)).toEqual([64, 64]);
    expect(result).toMatchObject({ promptTokens: 6, estimated: false });
  });

  it('maps each canonical task onto a jina-embeddings-v3 adapter', async () => {
    const expected = { retrieval_query: 'retrieval.query', semantic_similarity: 'text-matching', classification: 'classification', clustering: 'separation' } as const;
    for (const [task, jinaTask] of Object.entries(expected)) {
      await jinaEmbeddingAdapter.embed({ inputs: ['x'], task: task as keyof typeof expected }, jina());
      expect(simulator.lastRequest('jina')?.body).toMatchObject({ task: jinaTask });
    }
  });

  it('refuses token-array inputs naming input', () => {
    expect(jinaEmbeddingAdapter.incapability({ inputs: [[5, 6]] }, 'jina-embeddings-v3')).toMatchObject({ field: 'input' });
  });

  it('reads the 422 detail list as the message, naming the field', async () => {
    const error = await jinaEmbeddingAdapter.embed({ inputs: ['x'], dimensions: 4096 }, jina()).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 422, retryable: false, message: 'jina answered 422: dimensions: dimensions must be an integer from 1 to 1024' });
  });
});
