import { readFileSync } from 'node:fs';
import { createCohere } from '@ai-sdk/cohere';
import { rerank } from 'ai';
import { CohereClientV2, CohereError } from 'cohere-ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readAccountMoney, sendJson, startCohereGateway } from '../helpers/cohere-gateway.js';
import type { SimulatedGateway } from '../helpers/simulated-gateway.js';

const recordedRerank = readFileSync(new URL('../../src/providers/cohere/__fixtures__/cohere-rerank.json', import.meta.url), 'utf8');

const documents = [
  'Carson City is the capital city of the American state of Nevada.',
  'Washington, D.C. is the capital of the United States. It is a federal district.',
  'Capital punishment has existed in the United States since before it was a country.',
  'The Commonwealth of the Northern Mariana Islands is a group of islands in the Pacific Ocean.',
];
const query = 'What is the capital of the United States?';
/** Cohere's list price, $2.00 per 1,000 searches, in nano-USD. */
const searchNano = 2_000_000n;

let gateway: SimulatedGateway;

beforeAll(async () => {
  gateway = await startCohereGateway();
});
afterAll(async () => {
  await gateway?.close();
});
beforeEach(() => gateway.simulator.reset());

async function requestRow(requestId: string) {
  await gateway.test.context.requestLog.flush();
  return gateway.test.context.store.db.selectFrom('requests').selectAll().where('id', '=', requestId).executeTakeFirst();
}

describe('cohere-ai (CohereClientV2) pointed at the gateway', () => {
  it('reranks with top_n: the indexes and scores of the best documents, Cohere billed units, charged one search', async () => {
    const before = await readAccountMoney(gateway);
    const cohere = new CohereClientV2({ token: gateway.key, environment: gateway.url });
    const { data, rawResponse } = await cohere.rerank({ model: 'cohere/rerank-v3.5', query, documents, topN: 2 }).withRawResponse();
    expect(data.results).toHaveLength(2);
    expect(data.results[0].index).toBe(1);
    expect(data.results[0].relevanceScore).toBeGreaterThan(data.results[1].relevanceScore);
    expect(data.meta?.billedUnits?.searchUnits).toBe(1);
    // What Cohere got: its own model name, the documents as strings, top_n.
    expect(gateway.simulator.lastRequest('cohere')?.body).toEqual({ model: 'rerank-v3.5', query, documents, top_n: 2 });
    expect(gateway.simulator.lastRequest('cohere')?.headers.authorization).toBe('Bearer sim-key');
    expect(rawResponse.headers.get('x-switchyard-cost')).toBe('0.002');
    const after = await readAccountMoney(gateway);
    expect(after.usage - before.usage).toBe(searchNano);
    expect(after.reserved).toBe(0n);
  });

  it('gets the envelope of a refusal as a Cohere error with the status', async () => {
    const cohere = new CohereClientV2({ token: gateway.key, environment: gateway.url });
    const error = await cohere.rerank({ model: 'cohere/rerank-v3.5', query, documents: [] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CohereError);
    expect((error as CohereError).statusCode).toBe(400);
    expect(JSON.stringify((error as CohereError).body)).toContain("'documents' must hold at least one document");
  });
});

describe("the AI SDK's rerank over @ai-sdk/cohere pointed at the gateway", () => {
  it('ranks the documents best first, at most topN', async () => {
    const cohere = createCohere({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key });
    const result = await rerank({ model: cohere.reranking('cohere/rerank-v3.5'), query, documents, topN: 3 });
    expect(result.ranking).toHaveLength(3);
    expect(result.ranking[0]).toMatchObject({ originalIndex: 1, document: documents[1] });
    expect(result.rerankedDocuments[0]).toBe(documents[1]);
    const scores = result.ranking.map((entry) => entry.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(gateway.simulator.lastRequest('cohere')?.body).toMatchObject({ model: 'rerank-v3.5', top_n: 3 });
  });
});

describe('POST /v1/rerank over plain HTTP', () => {
  it('takes {text} documents, answers them back with return_documents, and logs the row with its cost', async () => {
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/rerank', {
      model: 'cohere/rerank-v3.5',
      query,
      documents: documents.map((text) => ({ text })),
      return_documents: true,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { id: string; model: string; results: { index: number; relevance_score: number; document?: { text: string } }[]; usage: Record<string, number> };
    const requestId = response.headers.get('x-request-id')!;
    expect(body.id).toBe(requestId);
    expect(body.model).toBe('cohere/rerank-v3.5');
    expect(body.results).toHaveLength(4);
    for (const result of body.results) expect(result.document).toEqual({ text: documents[result.index] });
    expect(body.usage).toEqual({ search_units: 1 });
    expect(response.headers.get('x-switchyard-cost')).toBe('0.002');
    expect(response.headers.get('x-switchyard-provider')).toBe('sim-cohere');
    const row = await requestRow(requestId);
    expect(row).toMatchObject({ endpoint: '/rerank', model: 'cohere/rerank-v3.5', provider: 'sim-cohere', status: 'completed' });
    expect(BigInt(row!.cost)).toBe(searchNano);
  });

  it('charges every search unit Cohere bills: 150 documents are 2 searches', async () => {
    const before = await readAccountMoney(gateway);
    const many = Array.from({ length: 150 }, (_, index) => `document number ${index} about the capital`);
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/rerank', { model: 'cohere/rerank-v3.5', query, documents: many, top_n: 5 });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: unknown[]; usage: { search_units: number } };
    expect(body.results).toHaveLength(5);
    expect(body.usage.search_units).toBe(2);
    expect(response.headers.get('x-switchyard-cost')).toBe('0.004');
    const after = await readAccountMoney(gateway);
    expect(after.usage - before.usage).toBe(2n * searchNano);
  });

  it('replays a recorded Cohere answer (vercel/ai fixture) through the gateway', async () => {
    gateway.simulator.play({ protocol: 'cohere', contentType: 'application/json', body: recordedRerank });
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/rerank', { model: 'cohere/rerank-v3.5', query: 'rainy day', documents: ['sunny day at the beach', 'rainy day in the city'] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: unknown[]; meta: unknown };
    expect(body.results).toEqual([
      { index: 1, relevance_score: 0.10183054 },
      { index: 0, relevance_score: 0.03762639 },
    ]);
    expect(body.meta).toEqual({ api_version: { version: '2' }, billed_units: { search_units: 1 } });
    expect(response.headers.get('x-switchyard-cost')).toBe('0.002');
  });

  it('fails over to the second rerank endpoint when the first answers 500, charging once', async () => {
    gateway.simulator.setFault({ match: { protocol: 'cohere', model: 'rerank-v3.5' }, fault: { status: 500 }, times: 1 });
    const before = await readAccountMoney(gateway);
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/rerank', { model: 'cohere/rerank-v3.5', query, documents });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-provider')).toBe('sim-cohere-backup');
    expect(gateway.simulator.received().map((entry) => (entry.body as { model: string }).model)).toEqual(['rerank-v3.5', 'rerank-english-v3.0']);
    const after = await readAccountMoney(gateway);
    expect(after.usage - before.usage).toBe(searchNano);
    expect(after.reserved).toBe(0n);
  });

  it("answers a provider's refusal in the envelope with x-request-id, charging nothing", async () => {
    const before = await readAccountMoney(gateway);
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/rerank', { model: 'cohere/rerank-v3.5', query: 'broken [[sim:status=400]]', documents });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(600);
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(/^req_/);
    const body = (await response.json()) as { error: { code: string; message: string; metadata: { request_id: string } } };
    expect(body.error.metadata.request_id).toBe(requestId);
    expect((await readAccountMoney(gateway)).usage).toBe(before.usage);
  });

  it.each([
    ['empty documents', { query, documents: [] }, 'documents', 'at least one'],
    ['documents not an array', { query, documents: 'one' }, 'documents', 'array'],
    ['1,001 documents', { query, documents: Array.from({ length: 1001 }, () => 'd') }, 'documents', 'at most 1000'],
    ['a number as a document', { query, documents: ['a', 7] }, 'documents[1]', 'string or a {text} object'],
    ['a document field other than text', { query, documents: [{ text: 'a', title: 't' }] }, 'documents[0].title', 'Unsupported parameter'],
    ['top_n 0', { query, documents: ['a'], top_n: 0 }, 'top_n', 'at least 1'],
    ['top_n 1.5', { query, documents: ['a'], top_n: 1.5 }, 'top_n', 'integer'],
    ['no query', { documents: ['a'] }, 'query', 'required'],
    ['return_documents not a boolean', { query, documents: ['a'], return_documents: 'yes' }, 'return_documents', 'boolean'],
    ['an unknown field', { query, documents: ['a'], rank_fields: ['text'] }, 'rank_fields', 'Unsupported parameter'],
  ])('refuses %s naming the field, before any provider call', async (_name, fields, param, message) => {
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/rerank', { model: 'cohere/rerank-v3.5', ...fields });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    const body = (await response.json()) as { error: { code: string; param: string; message: string } };
    expect(body.error).toMatchObject({ code: 'invalid_request', param });
    expect(body.error.message).toContain(message);
    expect(gateway.simulator.stats().protocols.cohere.requests).toBe(0);
  });

  it('refuses a model without a rerank endpoint, as every route refuses a model without its endpoint', async () => {
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/rerank', { model: 'sim/chat', query, documents });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'no_available_provider', message: expect.stringContaining('/rerank') });
    expect(gateway.simulator.stats().protocols.cohere.requests).toBe(0);
  });
});

describe('a balance too small for the search', () => {
  let poor: SimulatedGateway;
  beforeAll(async () => {
    // $0.001 of credit: less than one search at $0.002.
    poor = await startCohereGateway({ credits: 0.001 });
  });
  afterAll(async () => {
    await poor?.close();
  });

  it('is refused 402 before Cohere is called', async () => {
    const response = await sendJson(poor, poor.key, 'POST', '/v1/rerank', { model: 'cohere/rerank-v3.5', query, documents });
    expect(response.status).toBe(402);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(poor.simulator.stats().protocols.cohere.requests).toBe(0);
    const money = await readAccountMoney(poor);
    expect(money.usage).toBe(0n);
    expect(money.reserved).toBe(0n);
  });

  it('is refused 402 when the reservation (the most the request can cost) exceeds the balance, though one search would fit', async () => {
    const cheap = await startCohereGateway({ credits: 0.003 });
    try {
      // 101 documents can be billed 2 searches ($0.004): more than $0.003.
      const response = await sendJson(cheap, cheap.key, 'POST', '/v1/rerank', { model: 'cohere/rerank-v3.5', query, documents: Array.from({ length: 101 }, (_, index) => `doc ${index}`) });
      expect(response.status).toBe(402);
      expect(cheap.simulator.stats().protocols.cohere.requests).toBe(0);
    } finally {
      await cheap.close();
    }
  });
});
