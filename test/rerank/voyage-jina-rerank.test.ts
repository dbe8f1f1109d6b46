import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SimulatedGateway } from '../helpers/simulated-gateway.js';
import { jinaRerankPrice, readAccountMoney, sendJson, startVoyageJinaGateway, tokenCharge, voyageRerankPrice } from '../helpers/voyage-jina-gateway.js';

const documents = ['sunny weather today', 'capital of france is paris', 'paris france museums', 'cats sleep a lot'];
const query = 'what is the capital of france';
/** The simulator's rerank tokens (Voyage's rule): query tokens × documents + the documents' tokens = 6 × 4 + 15. */
const rerankTokens = 39;

let gateway: SimulatedGateway;
beforeAll(async () => {
  gateway = await startVoyageJinaGateway();
});
afterAll(async () => {
  await gateway?.close();
});
beforeEach(() => gateway.simulator.reset());

async function requestRow(requestId: string) {
  await gateway.test.context.requestLog.flush();
  return gateway.test.context.store.db.selectFrom('requests').selectAll().where('id', '=', requestId).executeTakeFirst();
}

type RerankBody = { id: string; model: string; results: { index: number; relevance_score: number; document?: { text: string } }[]; usage: Record<string, number> };

describe.each([
  ['voyage/rerank-2.5', 'voyage', 'sim-voyage', voyageRerankPrice, { query, documents, model: 'rerank-2.5', return_documents: false, top_k: 2 }],
  ['jina/jina-reranker-v2-base-multilingual', 'jina', 'sim-jina', jinaRerankPrice, { model: 'jina-reranker-v2-base-multilingual', query, documents, return_documents: false, top_n: 2 }],
] as const)('POST /v1/rerank over %s', (model, protocol, provider, price, sent) => {
  it('answers the best top_n with their documents, charged the tokens the provider reported × price, logged with that cost', async () => {
    const before = await readAccountMoney(gateway);
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/rerank', { model, query, documents, top_n: 2, return_documents: true });
    expect(response.status).toBe(200);
    const body = (await response.json()) as RerankBody;
    expect(body.model).toBe(model);
    expect(body.results.map((result) => result.index)).toEqual([1, 2]);
    expect(body.results[0]!.relevance_score).toBeGreaterThan(body.results[1]!.relevance_score);
    for (const result of body.results) expect(result.document).toEqual({ text: documents[result.index] });
    expect(body.usage.total_tokens).toBe(rerankTokens);
    expect(gateway.simulator.lastRequest(protocol)?.body).toEqual(sent);
    expect(response.headers.get('x-switchyard-provider')).toBe(provider);
    const charge = tokenCharge(rerankTokens, price);
    const after = await readAccountMoney(gateway);
    expect(after.usage - before.usage).toBe(charge);
    expect(after.reserved).toBe(0n);
    const row = await requestRow(response.headers.get('x-request-id')!);
    expect(row).toMatchObject({ endpoint: '/rerank', model, provider, status: 'completed' });
    expect(BigInt(row!.cost)).toBe(charge);
  });

  it('answers every document without top_n, and none of their texts without return_documents', async () => {
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/rerank', { model, query, documents });
    expect(response.status).toBe(200);
    const body = (await response.json()) as RerankBody;
    expect(body.results.map((result) => result.index)).toEqual([1, 2, 0, 3]);
    expect(body.results.every((result) => result.document === undefined)).toBe(true);
  });

  it('refuses max_tokens_per_doc naming it, before any provider call', async () => {
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/rerank', { model, query, documents, max_tokens_per_doc: 100 });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain('max_tokens_per_doc');
    expect(gateway.simulator.received()).toHaveLength(0);
  });
});

describe('an account that cannot pay', () => {
  let poor: SimulatedGateway;
  beforeAll(async () => {
    poor = await startVoyageJinaGateway({ credits: 0.000001 });
  });
  afterAll(async () => {
    await poor?.close();
  });

  it.each(['voyage/rerank-2.5', 'jina/jina-reranker-v2-base-multilingual'])('%s is refused 402 before the provider is called, charging nothing', async (model) => {
    const many = Array.from({ length: 200 }, (_, index) => `document number ${index} about the capital of france`);
    const response = await sendJson(poor, poor.key, 'POST', '/v1/rerank', { model, query, documents: many });
    expect(response.status).toBe(402);
    expect(poor.simulator.stats().protocols.voyage.requests + poor.simulator.stats().protocols.jina.requests).toBe(0);
    const money = await readAccountMoney(poor);
    expect(money.usage).toBe(0n);
    expect(money.reserved).toBe(0n);
  });
});
