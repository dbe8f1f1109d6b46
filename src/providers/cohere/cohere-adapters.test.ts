import { startSimulator, type Simulator } from '@switchyard/simulator';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../config/types.js';
import { UpstreamError } from '../../errors/upstream-error.js';
import type { CallContext } from '../provider-adapter.js';
import { cohereEmbeddingAdapter } from './create-embeddings.js';
import { cohereRerankAdapter, readRerankAnswer } from './rerank-documents.js';

let simulator: Simulator;
const dispatcher = new Agent();

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: 'co-key' });
});
afterAll(async () => {
  await simulator.close();
  await dispatcher.close();
});
beforeEach(() => simulator.reset());

function context(providerModel: string, key = 'co-key'): CallContext {
  const provider: ProviderConfig = {
    id: 'cohere',
    name: 'Cohere',
    api: 'cohere',
    baseUrl: simulator.baseUrls.cohere,
    auth: { kind: 'bearer', token: key },
    enabled: true,
    headers: {},
    timeouts: { connectMs: 1000, firstByteMs: 2000, idleMs: 2000 },
  };
  return { provider, providerModel, signal: new AbortController().signal, dispatcher };
}

describe('cohereEmbeddingAdapter', () => {
  it.each([
    ['retrieval_query', 'search_query'],
    ['retrieval_document', 'search_document'],
    ['classification', 'classification'],
    ['clustering', 'clustering'],
    ['semantic_similarity', 'clustering'],
    ['question_answering', 'search_query'],
  ] as const)('sends the task %s as input_type %s', async (task, inputType) => {
    await cohereEmbeddingAdapter.embed({ inputs: ['a'], task }, context('embed-english-v3.0'));
    expect((simulator.lastRequest('cohere')!.body as { input_type: string }).input_type).toBe(inputType);
  });

  it('leaves output_dimension out for a model before Embed 4, which answers its own size only', async () => {
    const result = await cohereEmbeddingAdapter.embed({ inputs: ['a'], dimensions: 1024 }, context('embed-english-v3.0'));
    expect(simulator.lastRequest('cohere')!.body).not.toHaveProperty('output_dimension');
    expect(result.vectors[0]).toHaveLength(1024);
  });

  it('takes at most 96 texts a call and no token arrays', () => {
    expect(cohereEmbeddingAdapter.maxInputsPerCall('embed-v4.0')).toBe(96);
    expect(cohereEmbeddingAdapter.incapability({ inputs: [[1, 2]] }, 'embed-v4.0')).toMatchObject({ field: 'input' });
    expect(cohereEmbeddingAdapter.incapability({ inputs: ['a'] }, 'embed-v4.0')).toBeUndefined();
  });
});

describe('cohereRerankAdapter', () => {
  it('sends max_tokens_per_doc and reads the search units Cohere billed', async () => {
    const result = await cohereRerankAdapter.rerank({ query: 'cat', documents: ['a cat', 'a dog'], maxTokensPerDocument: 512 }, context('rerank-v3.5'));
    expect(simulator.lastRequest('cohere')!.body).toEqual({ model: 'rerank-v3.5', query: 'cat', documents: ['a cat', 'a dog'], max_tokens_per_doc: 512 });
    expect(result).toMatchObject({ searches: 1, estimated: true });
    expect(result.results[0].index).toBe(0);
  });

  it("rejects a refused key as Cohere's 401, not retryable", async () => {
    const error = await cohereRerankAdapter.rerank({ query: 'q', documents: ['d'] }, context('rerank-v3.5', 'wrong')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 401, retryable: false });
    expect((error as UpstreamError).message).toContain('invalid api token');
  });

  it("maps Cohere's 498 (invalid token) to 401", async () => {
    simulator.setFault({ match: { protocol: 'cohere' }, fault: { status: 498 } });
    const error = await cohereRerankAdapter.rerank({ query: 'q', documents: ['d'] }, context('rerank-v3.5')).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 401 });
  });

  it('refuses an answer whose index is outside the documents as a bad (retryable) answer', () => {
    expect(() => readRerankAnswer('cohere', { results: [{ index: 5, relevance_score: 0.5 }] }, 2, 1)).toThrow(UpstreamError);
    expect(() => readRerankAnswer('cohere', {}, 2, 1)).toThrow(/without results/);
    expect(readRerankAnswer('cohere', { results: [] }, 2, 1)).toMatchObject({ searches: 1 });
  });
});
