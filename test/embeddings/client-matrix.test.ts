import { createCohere } from '@ai-sdk/cohere';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { GoogleGenAI } from '@google/genai';
import { OpenAIEmbeddings } from '@langchain/openai';
import { embedMany, rerank } from 'ai';
import { CohereClientV2 } from 'cohere-ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAccountMoney, sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * Every real client, with its defaults and only its base URL changed, against an embedding (or
 * rerank) model of every protocol that has the API: the gateway's styles are the same whatever
 * the provider's protocol, so each client must work with each. Each case checks the answer's shape
 * and that the request log names the protocol's provider and holds exactly what the account was
 * charged.
 */
function matrixCatalogYaml(simulatorUrl: string): string {
  const timeouts = '{connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000}';
  return `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: sim-openai, name: Sim OpenAI, api: openai, base_url: "${simulatorUrl}/openai/v1", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-gemini, name: Sim Gemini, api: gemini, base_url: "${simulatorUrl}/gemini/v1beta", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-bedrock, name: Sim Bedrock, api: bedrock, base_url: "${simulatorUrl}/bedrock", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-cohere, name: Sim Cohere, api: cohere, base_url: "${simulatorUrl}/cohere", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-voyage, name: Sim Voyage, api: voyage, base_url: "${simulatorUrl}/voyage/v1", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-jina, name: Sim Jina, api: jina, base_url: "${simulatorUrl}/jina/v1", api_key: sim-key, timeouts: ${timeouts}}
models:
  - id: matrix/openai-embed
    name: "Matrix: OpenAI embeddings"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1536, output_dimensions: any}
    endpoints: [{provider: sim-openai, model: text-embedding-3-small, pricing: {prompt: 0.02}}]
  - id: matrix/gemini-embed
    name: "Matrix: Gemini embeddings"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 3072, output_dimensions: any}
    endpoints: [{provider: sim-gemini, model: gemini-embedding-001, pricing: {prompt: 0.15}}]
  - id: matrix/bedrock-embed
    name: "Matrix: Titan embeddings on Bedrock"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1024, output_dimensions: [256, 512, 1024]}
    endpoints: [{provider: sim-bedrock, model: "amazon.titan-embed-text-v2:0", pricing: {prompt: 0.02}}]
  - id: matrix/cohere-embed
    name: "Matrix: Cohere embeddings"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1536, output_dimensions: [256, 512, 1024, 1536]}
    endpoints: [{provider: sim-cohere, model: embed-v4.0, pricing: {prompt: 0.12}}]
  - id: matrix/voyage-embed
    name: "Matrix: Voyage embeddings"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1024, output_dimensions: [256, 512, 1024, 2048]}
    endpoints: [{provider: sim-voyage, model: voyage-3.5, pricing: {prompt: 0.06}}]
  - id: matrix/cohere-rerank
    name: "Matrix: Cohere rerank"
    modalities: {input: [text], output: [rerank]}
    endpoints: [{provider: sim-cohere, model: rerank-v3.5, pricing: {prompt: 0, completion: 0, search: 0.002}}]
  - id: matrix/bedrock-rerank
    name: "Matrix: Cohere rerank on Bedrock"
    modalities: {input: [text], output: [rerank]}
    endpoints: [{provider: sim-bedrock, model: "cohere.rerank-v3-5:0", pricing: {prompt: 0, completion: 0, search: 0.002}}]
  - id: matrix/voyage-rerank
    name: "Matrix: Voyage rerank"
    modalities: {input: [text], output: [rerank]}
    endpoints: [{provider: sim-voyage, model: rerank-2.5, pricing: {prompt: 0.05, completion: 0}}]
  - id: matrix/jina-rerank
    name: "Matrix: Jina rerank"
    modalities: {input: [text], output: [rerank]}
    endpoints: [{provider: sim-jina, model: jina-reranker-v2-base-multilingual, pricing: {prompt: 0.05, completion: 0}}]
`;
}

const embeddingModels = [
  { model: 'matrix/openai-embed', provider: 'sim-openai', dimensions: 1536 },
  { model: 'matrix/gemini-embed', provider: 'sim-gemini', dimensions: 3072 },
  { model: 'matrix/bedrock-embed', provider: 'sim-bedrock', dimensions: 1024 },
  { model: 'matrix/cohere-embed', provider: 'sim-cohere', dimensions: 1536 },
  { model: 'matrix/voyage-embed', provider: 'sim-voyage', dimensions: 1024 },
];
const rerankModels = [
  { model: 'matrix/cohere-rerank', provider: 'sim-cohere' },
  { model: 'matrix/bedrock-rerank', provider: 'sim-bedrock' },
  { model: 'matrix/voyage-rerank', provider: 'sim-voyage' },
  { model: 'matrix/jina-rerank', provider: 'sim-jina' },
];
const texts = ['the quick brown fox', 'jumps over the lazy dog', 'a third text to embed'];
const query = 'which animal is lazy?';
const documents = ['the fox is quick', 'the dog is lazy', 'nothing about animals here'];

let gateway: SimulatedGateway;

beforeAll(async () => {
  gateway = await startSimulatedGateway({ simulator: { apiKey: 'sim-key' }, catalogYaml: matrixCatalogYaml, credits: 100 });
});
afterAll(async () => {
  await gateway?.close();
});

/**
 * Runs one client call and checks the books: the account's usage grew by exactly what the
 * request log rows of the call hold, nothing stays reserved, and every row names the provider.
 */
async function charged(model: string, provider: string, call: () => Promise<void>): Promise<void> {
  const before = await readAccountMoney(gateway);
  const seen = await logRowsOf(model);
  await call();
  let rows: Array<{ provider: string; status: string; cost: number }> = [];
  for (let attempt = 0; attempt < 100 && rows.length === 0; attempt += 1) {
    const all = await logRowsOf(model);
    rows = all.slice(0, all.length - seen.length);
    if (rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) expect(row).toMatchObject({ provider, status: 'completed' });
  const after = await readAccountMoney(gateway);
  expect(after.reserved).toBe(before.reserved);
  const logged = rows.reduce((sum, row) => sum + BigInt(Math.round(row.cost * 1e9)), 0n);
  expect(after.usage - before.usage).toBe(logged);
  expect(logged).toBeGreaterThan(0n);
}

async function logRowsOf(model: string): Promise<Array<{ provider: string; status: string; cost: number }>> {
  const answer = await sendJson(gateway, gateway.key, 'GET', `/v1/requests?model=${encodeURIComponent(model)}&limit=100`);
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { data: Array<{ provider: string; status: string; cost: number }> }).data;
}

describe.each(embeddingModels)('embeddings on $model, by every client with its defaults', ({ model, provider, dimensions }) => {
  it('the openai SDK (embeddings.create, base64 on the wire by default)', async () => {
    const client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1` });
    await charged(model, provider, async () => {
      const answer = await client.embeddings.create({ model, input: texts });
      expect(answer.data.map((item) => item.index)).toEqual([0, 1, 2]);
      for (const item of answer.data) expect(item.embedding).toHaveLength(dimensions);
      expect(answer.usage.prompt_tokens).toBeGreaterThan(0);
    });
  });

  it("the AI SDK's embedMany over @ai-sdk/openai-compatible", async () => {
    const provider_ = createOpenAICompatible({ name: 'switchyard', baseURL: `${gateway.url}/v1`, apiKey: gateway.key });
    await charged(model, provider, async () => {
      const result = await embedMany({ model: provider_.textEmbeddingModel(model), values: texts });
      expect(result.embeddings).toHaveLength(3);
      for (const vector of result.embeddings) expect(vector).toHaveLength(dimensions);
    });
  });

  it("LangChain's OpenAIEmbeddings (embedDocuments)", async () => {
    const embeddings = new OpenAIEmbeddings({ model, apiKey: gateway.key, configuration: { baseURL: `${gateway.url}/v1` } });
    await charged(model, provider, async () => {
      const vectors = await embeddings.embedDocuments(texts);
      expect(vectors).toHaveLength(3);
      for (const vector of vectors) expect(vector).toHaveLength(dimensions);
    });
  });

  it("@google/genai's models.embedContent (the Gemini style)", async () => {
    const genai = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } });
    await charged(model, provider, async () => {
      const answer = await genai.models.embedContent({ model, contents: texts });
      expect(answer.embeddings).toHaveLength(3);
      for (const embedding of answer.embeddings ?? []) expect(embedding.values).toHaveLength(dimensions);
    });
  });
});

describe.each(rerankModels)('rerank on $model, by every client with its defaults', ({ model, provider }) => {
  it("cohere-ai's CohereClientV2.rerank", async () => {
    const cohere = new CohereClientV2({ token: gateway.key, environment: gateway.url });
    await charged(model, provider, async () => {
      const answer = await cohere.rerank({ model, query, documents, topN: 2 });
      expect(answer.results).toHaveLength(2);
      expect(answer.results[0].relevanceScore).toBeGreaterThanOrEqual(answer.results[1].relevanceScore);
      for (const result of answer.results) expect(result.index).toBeLessThan(documents.length);
    });
  });

  it("the AI SDK's rerank over @ai-sdk/cohere", async () => {
    const cohere = createCohere({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key });
    await charged(model, provider, async () => {
      const result = await rerank({ model: cohere.reranking(model), query, documents, topN: 2 });
      expect(result.ranking).toHaveLength(2);
      expect(result.ranking[0].score).toBeGreaterThanOrEqual(result.ranking[1].score);
    });
  });
});
