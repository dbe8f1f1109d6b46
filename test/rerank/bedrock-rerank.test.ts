import { startSimulator, type Simulator } from '@switchyard/simulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RerankRequest } from '../../src/core/rerank-request.js';
import { bedrockRerankAdapter } from '../../src/providers/bedrock/rerank-documents.js';
import { rerankAdapterOf } from '../../src/providers/retrieval-adapters.js';
import { bedrockCallContext } from '../helpers/bedrock-call-context.js';

/**
 * The Bedrock rerank adapter against the simulator's InvokeModel routes for Cohere Rerank 3.5 and
 * Amazon Rerank 1.0 (bodies as AWS and Cohere document them; SigV4 or the API key checked).
 */
let simulator: Simulator;
beforeAll(async () => {
  simulator = await startSimulator({ apiKey: 'sim-key' });
});
afterAll(() => simulator.close());
beforeEach(() => simulator.reset());

async function rerank(auth: 'api-key' | 'sigv4', model: string, request: RerankRequest) {
  const context = bedrockCallContext(simulator, auth, model);
  try {
    return await bedrockRerankAdapter.rerank(request, context);
  } finally {
    await context.close();
  }
}

const received = () => simulator.lastRequest('bedrock')!;
const documents = [
  'Carson City is the capital city of the American state of Nevada.',
  'The Commonwealth of the Northern Mariana Islands is a group of islands in the Pacific Ocean. Its capital is Saipan.',
  'Washington, D.C. is the capital of the United States. It is a federal district.',
  'Capital punishment has existed in the United States since before it was a country.',
];
const query = 'What is the capital of the United States?';

describe('Bedrock rerank', () => {
  it('is the registered rerank adapter of the bedrock protocol', () => {
    expect(rerankAdapterOf('bedrock')).toBe(bedrockRerankAdapter);
  });

  it('Cohere Rerank 3.5: Cohere v2 body with api_version 2, best first, top_n, one search', async () => {
    const result = await rerank('api-key', 'cohere.rerank-v3-5:0', { query, documents, topN: 2, maxTokensPerDocument: 512 });
    expect(received().path).toBe('/bedrock/model/cohere.rerank-v3-5%3A0/invoke');
    expect(received().body).toEqual({ query, documents, top_n: 2, max_tokens_per_doc: 512, api_version: 2 });
    expect(result.results).toHaveLength(2);
    expect(result.results[0]!.index).toBe(2);
    expect(result.results[0]!.relevanceScore).toBeGreaterThan(result.results[1]!.relevanceScore);
    // The simulator counts a token per word of the query and the documents.
    const words = [query, ...documents].reduce((sum, text) => sum + text.split(/\s+/).length, 0);
    expect(result).toMatchObject({ searches: 1, tokens: words, estimated: false });
  });

  it('Amazon Rerank 1.0 signed with SigV4: query, documents and top_n only', async () => {
    const result = await rerank('sigv4', 'amazon.rerank-v1:0', { query, documents });
    expect(received().headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
    expect(received().body).toEqual({ query, documents });
    expect(result.results.map((item) => item.index).sort()).toEqual([0, 1, 2, 3]);
    expect(result.results[0]!.index).toBe(2);
  });

  it('top_n above the number of documents asks for all of them', async () => {
    await rerank('api-key', 'amazon.rerank-v1:0', { query, documents, topN: 10 });
    expect(received().body).toMatchObject({ top_n: 4 });
  });

  it('bills one search per 100 documents, as AWS counts queries', async () => {
    const many = Array.from({ length: 150 }, (_, index) => `document number ${index}`);
    const result = await rerank('api-key', 'cohere.rerank-v3-5:0', { query: 'number 7', documents: many, topN: 3 });
    expect(result.searches).toBe(2);
    expect(result.results[0]!.index).toBe(7);
  });

  it('without the token header the tokens are estimated and marked so', async () => {
    simulator.setFault({ match: { protocol: 'bedrock' }, fault: { no_usage: true }, times: 1 });
    const result = await rerank('api-key', 'amazon.rerank-v1:0', { query: 'abcd', documents: ['abcdefgh'] });
    expect(result).toMatchObject({ tokens: 3, estimated: true, searches: 1 });
  });

  it('refuses by name what a Bedrock rerank model cannot take', () => {
    expect(bedrockRerankAdapter.incapability({ query, documents, maxTokensPerDocument: 100 }, 'amazon.rerank-v1:0')).toMatchObject({ field: 'max_tokens_per_doc' });
    expect(bedrockRerankAdapter.incapability({ query, documents: Array.from({ length: 1001 }, () => 'x') }, 'cohere.rerank-v3-5:0')).toMatchObject({ field: 'documents' });
    expect(bedrockRerankAdapter.incapability({ query, documents }, 'cohere.embed-english-v3')).toMatchObject({ field: 'model' });
    expect(bedrockRerankAdapter.incapability({ query, documents, maxTokensPerDocument: 100 }, 'arn:aws:bedrock:us-west-2::foundation-model/cohere.rerank-v3-5:0')).toBeUndefined();
  });

  it("the simulator refuses a Cohere rerank body without api_version as Bedrock does", async () => {
    const response = await fetch(`${simulator.url}/bedrock/model/cohere.rerank-v3-5%3A0/invoke`, {
      method: 'POST',
      headers: { authorization: 'Bearer sim-key', 'content-type': 'application/json' },
      body: JSON.stringify({ query, documents }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/api_version: 1 is not greater or equal to 2/);
  });
});
