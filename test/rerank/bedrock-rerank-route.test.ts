import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';
import { readAccountMoney, requestRow, sendJson, startBedrockRetrievalGateway } from '../helpers/bedrock-retrieval-gateway.js';

/**
 * `POST /v1/rerank` over plain HTTP to Bedrock's Cohere Rerank 3.5 (API key) and Amazon Rerank
 * 1.0 (SigV4) on the simulator's InvokeModel routes: top_n and return_documents, searches × price
 * exactly in the ledger and the request log.
 */
const documents = [
  'Carson City is the capital city of the American state of Nevada.',
  'Washington, D.C. is the capital of the United States. It is a federal district.',
  'Capital punishment has existed in the United States since before it was a country.',
  'The Commonwealth of the Northern Mariana Islands is a group of islands in the Pacific Ocean.',
];
const query = 'What is the capital of the United States?';
/** $2.00 and $1.00 per 1,000 searches, in nano-USD. */
const cohereSearch = 2_000_000n;
const amazonSearch = 1_000_000n;

interface RerankAnswer {
  id: string;
  model: string;
  results: { index: number; relevance_score: number; document?: { text: string } }[];
  usage?: { search_units?: number };
}

for (const database of testDatabases()) {
  describe(`POST /v1/rerank on Bedrock rerank models (${database.name})`, () => {
    let gateway: SimulatedGateway;
    beforeAll(async () => {
      gateway = await startBedrockRetrievalGateway({ databaseUrl: database.url });
    });
    afterAll(() => gateway?.close());
    beforeEach(() => gateway.simulator.reset());

    const lastBedrock = () => gateway.simulator.lastRequest('bedrock')!;

    it('Cohere Rerank 3.5 with top_n and return_documents: the best documents, one search × $0.002', async () => {
      const before = await readAccountMoney(gateway);
      const response = await sendJson(gateway, gateway.key, 'POST', '/v1/rerank', { model: 'bedrock/cohere-rerank', query, documents, top_n: 2, return_documents: true });
      expect(response.status).toBe(200);
      const body = (await response.json()) as RerankAnswer;
      expect(body.model).toBe('bedrock/cohere-rerank');
      expect(body.results).toHaveLength(2);
      expect(body.results[0]!.index).toBe(1);
      expect(body.results[0]!.relevance_score).toBeGreaterThan(body.results[1]!.relevance_score);
      for (const result of body.results) expect(result.document).toEqual({ text: documents[result.index] });
      // Bedrock's token header, the simulator's one token per word of the query and the documents.
      expect(body.usage).toEqual({ search_units: 1, total_tokens: [query, ...documents].reduce((sum, text) => sum + text.split(/\s+/).length, 0) });
      expect(lastBedrock().path).toBe('/bedrock/model/cohere.rerank-v3-5%3A0/invoke');
      expect(lastBedrock().body).toEqual({ query, documents, top_n: 2, api_version: 2 });
      expect(lastBedrock().headers.authorization).toBe('Bearer sim-key');
      expect(response.headers.get('x-switchyard-cost')).toBe('0.002');
      expect(response.headers.get('x-switchyard-provider')).toBe('bedrock-key');
      const after = await readAccountMoney(gateway);
      expect(after.usage - before.usage).toBe(cohereSearch);
      expect(after.reserved).toBe(0n);
      const row = await requestRow(gateway, response.headers.get('x-request-id')!);
      expect(row).toMatchObject({ endpoint: '/rerank', model: 'bedrock/cohere-rerank', provider: 'bedrock-key', status: 'completed' });
      expect(BigInt(row!.cost)).toBe(cohereSearch);
    });

    it('Amazon Rerank 1.0 signed with SigV4: all documents, without them in the answer, one search × $0.001', async () => {
      const before = await readAccountMoney(gateway);
      const response = await sendJson(gateway, gateway.key, 'POST', '/v1/rerank', { model: 'bedrock/amazon-rerank', query, documents });
      expect(response.status).toBe(200);
      const body = (await response.json()) as RerankAnswer;
      expect(body.results.map((result) => result.index).sort()).toEqual([0, 1, 2, 3]);
      expect(body.results[0]!.index).toBe(1);
      expect(body.results.every((result) => result.document === undefined)).toBe(true);
      expect(lastBedrock().body).toEqual({ query, documents });
      expect(lastBedrock().headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIASIMULATOREXAMPLE1\/\d{8}\/us-east-1\/bedrock\//);
      expect(response.headers.get('x-switchyard-cost')).toBe('0.001');
      expect((await readAccountMoney(gateway)).usage - before.usage).toBe(amazonSearch);
    });

    it('150 documents are two searches, as AWS counts them', async () => {
      const before = await readAccountMoney(gateway);
      const many = Array.from({ length: 150 }, (_, index) => `document number ${index} about the capital`);
      const response = await sendJson(gateway, gateway.key, 'POST', '/v1/rerank', { model: 'bedrock/amazon-rerank', query: 'number 42', documents: many, top_n: 3 });
      expect(response.status).toBe(200);
      const body = (await response.json()) as RerankAnswer;
      expect(body.results).toHaveLength(3);
      expect(body.results[0]!.index).toBe(42);
      expect(body.usage?.search_units).toBe(2);
      expect(response.headers.get('x-switchyard-cost')).toBe('0.002');
      const after = await readAccountMoney(gateway);
      expect(after.usage - before.usage).toBe(2n * amazonSearch);
      expect(BigInt((await requestRow(gateway, response.headers.get('x-request-id')!))!.cost)).toBe(2n * amazonSearch);
    });

    it("a Bedrock throttle is answered in the envelope, charging nothing", async () => {
      gateway.simulator.setFault({ match: { protocol: 'bedrock' }, fault: { status: 429 }, times: 5 });
      const before = await readAccountMoney(gateway);
      const response = await sendJson(gateway, gateway.key, 'POST', '/v1/rerank', { model: 'bedrock/cohere-rerank', query, documents });
      expect(response.status).toBe(429);
      const body = (await response.json()) as { error: { message: string } };
      expect(body.error.message).toBeTruthy();
      const after = await readAccountMoney(gateway);
      expect(after.usage - before.usage).toBe(0n);
      expect(after.reserved).toBe(0n);
    });

    it('max_tokens_per_doc on Amazon Rerank is refused by name', async () => {
      const response = await sendJson(gateway, gateway.key, 'POST', '/v1/rerank', { model: 'bedrock/amazon-rerank', query, documents, max_tokens_per_doc: 100 });
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toContain('max_tokens_per_doc');
    });
  });
}
