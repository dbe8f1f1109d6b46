import { startSimulator, type Simulator } from '@switchyard/simulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jinaRerankAdapter } from '../../src/providers/jina/rerank-documents.js';
import { rerankAdapterOf } from '../../src/providers/retrieval-adapters.js';
import { voyageRerankAdapter } from '../../src/providers/voyage/rerank-documents.js';
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

const documents = ['sunny weather today', 'capital of france is paris', 'paris france museums', 'cats sleep a lot'];
const query = 'what is the capital of france';

describe('voyage rerank adapter', () => {
  it('is registered for the voyage protocol', () => expect(rerankAdapterOf('voyage')).toBe(voyageRerankAdapter));

  it('sends top_k and return_documents false, and reads the results best first with Voyage’s tokens', async () => {
    const context = retrievalCallContext('voyage', simulator.baseUrls.voyage, 'rerank-2.5');
    const result = await voyageRerankAdapter.rerank({ query, documents, topN: 2 }, context);
    expect(simulator.lastRequest('voyage')?.body).toEqual({ query, documents, model: 'rerank-2.5', return_documents: false, top_k: 2 });
    expect(simulator.lastRequest('voyage')?.path).toBe('/voyage/v1/rerank');
    expect(result.results.map((entry) => entry.index)).toEqual([1, 2]);
    expect(result.results[0]!.relevanceScore).toBeGreaterThan(result.results[1]!.relevanceScore);
    // Voyage's rule: query tokens × documents + the documents' tokens = 6 × 4 + (3 + 5 + 3 + 4).
    expect(result).toMatchObject({ searches: 1, tokens: 39, estimated: false });
  });

  it('answers every document when top_n is absent', async () => {
    const context = retrievalCallContext('voyage', simulator.baseUrls.voyage, 'rerank-2.5');
    const result = await voyageRerankAdapter.rerank({ query, documents }, context);
    expect(simulator.lastRequest('voyage')?.body).not.toHaveProperty('top_k');
    expect(result.results).toHaveLength(4);
  });

  it('refuses a per-document token cap naming max_tokens_per_doc', () => {
    expect(voyageRerankAdapter.incapability({ query, documents, maxTokensPerDocument: 100 }, 'rerank-2.5')).toMatchObject({ field: 'max_tokens_per_doc' });
  });
});

describe('jina rerank adapter', () => {
  it('is registered for the jina protocol', () => expect(rerankAdapterOf('jina')).toBe(jinaRerankAdapter));

  it('sends top_n and return_documents false, and reads results and usage.total_tokens', async () => {
    const context = retrievalCallContext('jina', simulator.baseUrls.jina, 'jina-reranker-v2-base-multilingual');
    const result = await jinaRerankAdapter.rerank({ query, documents, topN: 3 }, context);
    expect(simulator.lastRequest('jina')?.body).toEqual({ model: 'jina-reranker-v2-base-multilingual', query, documents, return_documents: false, top_n: 3 });
    expect(result.results.map((entry) => entry.index)).toEqual([1, 2, 0]);
    expect(result).toMatchObject({ searches: 1, tokens: 39, estimated: false });
  });

  it('fails with the status the provider answered, retryable on 503', async () => {
    const context = retrievalCallContext('jina', simulator.baseUrls.jina, 'jina-reranker-v2-base-multilingual');
    const error = await jinaRerankAdapter.rerank({ query: 'x [[sim:status=503]]', documents }, context).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 503, retryable: true, message: 'jina answered 503: simulated error 503' });
  });
});
