import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddingOf, geminiEmbeddingOf } from '@switchyard/simulator';
import { countTextTokens } from '../../src/billing/count-tokens.js';
import { readAccountMoney, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { recording, startReplayProvider, type ReplayProvider } from '../helpers/replay-provider.js';
import { tokenCharge } from './embeddings-gateway.js';
import { geminiPrice, openaiPrice, readLogRow, startGeminiEmbeddingsGateway, vertexPrice } from './gemini-embeddings-gateway.js';

/**
 * Gemini's embedding routes (`models/{model}:embedContent`, `:batchEmbedContents`) through
 * `@google/genai` with its defaults, pointed at the gateway by base URL, over the simulator's
 * Gemini, Vertex and OpenAI embeddings; the openai SDK over a Gemini model; the charge (tokens ×
 * price, counted by the gateway where Gemini reports none); 402 before any provider call; and
 * recorded real answers replayed.
 */
let gateway: SimulatedGateway;
let replay: ReplayProvider;
let genai: GoogleGenAI;

const headerOf = (response: { sdkHttpResponse?: { headers?: Record<string, string> } }, name: string) => response.sdkHttpResponse?.headers?.[name];
const requestsTo = (suffix: string) => gateway.simulator.received().filter((entry) => entry.path.split('?')[0]!.endsWith(suffix));

beforeAll(async () => {
  replay = await startReplayProvider();
  gateway = await startGeminiEmbeddingsGateway({
    credits: 100,
    extra: {
      providers: `  - {id: rec-gemini, name: Recorded Gemini, api: gemini, base_url: "${replay.url}/v1beta", api_key: k}\n  - {id: rec-vertex, name: Recorded Vertex, api: gemini, platform: {kind: vertex, project: p, location: global}, base_url: "${replay.url}", api_key: k}\n`,
      models: `  - id: rec/gemini-embed-2
    name: "Recorded: gemini-embedding-2"
    modalities: {input: [text], output: [embeddings]}
    endpoints:
      - {provider: rec-gemini, model: gemini-embedding-2, pricing: {prompt: ${geminiPrice}}}
  - id: rec/vertex-embed
    name: "Recorded: Vertex embeddings"
    modalities: {input: [text], output: [embeddings]}
    endpoints:
      - {provider: rec-vertex, model: textembedding-gecko@001, pricing: {prompt: ${vertexPrice}}}
`,
    },
  });
  genai = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } });
});
afterAll(async () => {
  await gateway?.close();
  await replay?.close();
});

describe('@google/genai models.embedContent against the gateway', () => {
  it('embeds one content with a gemini-protocol model: the simulator’s vector, tokens counted by the gateway (Gemini reports none), charged tokens × price, logged as estimated', async () => {
    const before = await readAccountMoney(gateway);
    const text = 'What is the meaning of life?';
    const answer = await genai.models.embedContent({ model: 'sim/gemini-embed', contents: text });
    expect(answer.embeddings).toHaveLength(1);
    expect(answer.embeddings![0].values).toEqual(geminiEmbeddingOf('gemini-embedding-001', text, undefined, undefined));
    expect(answer.embeddings![0].values).toHaveLength(3072);
    // @google/genai sends even one content as batchEmbedContents, naming the model per request.
    const [upstream] = requestsTo('/gemini/v1beta/models/gemini-embedding-001:batchEmbedContents').slice(-1);
    expect(upstream!.body).toEqual({ requests: [{ model: 'models/gemini-embedding-001', content: { parts: [{ text }] } }] });

    const tokens = await countTextTokens(text);
    const cost = tokenCharge(tokens, geminiPrice);
    expect(headerOf(answer, 'x-switchyard-token-count')).toBe('estimated');
    expect(headerOf(answer, 'x-switchyard-cost')).toBe(String(Number(cost) / 1e9));
    const after = await readAccountMoney(gateway);
    expect(after.usage - before.usage).toBe(cost);
    expect(after.reserved).toBe(0n);
    const row = await readLogRow(gateway, headerOf(answer, 'x-request-id')!);
    expect(row).toMatchObject({ endpoint: '/models/{model}:batchEmbedContents', model: 'sim/gemini-embed', provider: 'sim-gemini', status: 'completed' });
    expect(Number(row.prompt_tokens)).toBe(tokens);
    expect(Boolean(row.estimated)).toBe(true);
    expect(BigInt(row.cost)).toBe(cost);
  });

  it('embeds several contents in order with outputDimensionality and taskType, passed on to Gemini', async () => {
    const texts = ['first document', 'second document', 'third'];
    const answer = await genai.models.embedContent({ model: 'sim/gemini-embed', contents: texts, config: { outputDimensionality: 256, taskType: 'RETRIEVAL_DOCUMENT', title: 'Notes' } });
    expect(answer.embeddings!.map((embedding) => embedding.values)).toEqual(texts.map((text) => geminiEmbeddingOf('gemini-embedding-001', text, 'RETRIEVAL_DOCUMENT', 256)));
    const [upstream] = requestsTo('gemini-embedding-001:batchEmbedContents').slice(-1);
    expect(upstream!.body).toEqual({
      requests: texts.map((text) => ({ model: 'models/gemini-embedding-001', content: { parts: [{ text }] }, taskType: 'RETRIEVAL_DOCUMENT', title: 'Notes', outputDimensionality: 256 })),
    });
  });

  it('serves an openai-protocol embedding model in Gemini’s shape, with the provider’s token count', async () => {
    const before = await readAccountMoney(gateway);
    const texts = ['the quick brown fox', 'jumps over'];
    const answer = await genai.models.embedContent({ model: 'sim/openai-embed', contents: texts, config: { outputDimensionality: 512, taskType: 'RETRIEVAL_QUERY' } });
    // The OpenAI simulator's vectors, which travelled base64 float32 from it: compared at float32.
    expect(answer.embeddings!.map((embedding) => Array.from(Float32Array.from(embedding.values!)))).toEqual(texts.map((text) => Array.from(Float32Array.from(embeddingOf(text, 512)))));
    expect(headerOf(answer, 'x-switchyard-token-count')).toBe('provider');
    const cost = tokenCharge(6, openaiPrice); // the simulator's words: 4 + 2
    expect((await readAccountMoney(gateway)).usage - before.usage).toBe(cost);
  });

  it('calls Vertex AI’s :predict for a Vertex endpoint and charges its token_count', async () => {
    const before = await readAccountMoney(gateway);
    const texts = ['one two three', 'four five'];
    const answer = await genai.models.embedContent({ model: 'sim/vertex-embed', contents: texts, config: { taskType: 'SEMANTIC_SIMILARITY' } });
    expect(answer.embeddings!.map((embedding) => embedding.values)).toEqual(texts.map((text) => geminiEmbeddingOf('text-embedding-005', text, 'SEMANTIC_SIMILARITY', undefined)));
    const calls = requestsTo('/vertex/v1/projects/sim-project/locations/global/publishers/google/models/text-embedding-005:predict');
    expect(calls.at(-1)!.body).toEqual({ instances: texts.map((content) => ({ content, task_type: 'SEMANTIC_SIMILARITY' })) });
    expect(headerOf(answer, 'x-switchyard-token-count')).toBe('provider');
    expect((await readAccountMoney(gateway)).usage - before.usage).toBe(tokenCharge(5, vertexPrice));
  });

  it('sends gemini-embedding-001 on Vertex one input a call and joins the vectors in order', async () => {
    const path = '/vertex/v1/projects/sim-project/locations/global/publishers/google/models/gemini-embedding-001:predict';
    const calls = requestsTo(path).length;
    const texts = ['alpha', 'beta gamma', 'delta'];
    const answer = await genai.models.embedContent({ model: 'sim/vertex-gemini-embed', contents: texts, config: { outputDimensionality: 64 } });
    expect(requestsTo(path).length - calls).toBe(3);
    expect(answer.embeddings!.map((embedding) => embedding.values)).toEqual(texts.map((text) => geminiEmbeddingOf('gemini-embedding-001', text, undefined, 64)));
  });

  it('answers :embedContent itself (a plain REST client), with usageMetadata and cost', async () => {
    const response = await fetch(`${gateway.url}/v1beta/models/sim/gemini-embed:embedContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': gateway.key },
      body: JSON.stringify({ model: 'models/sim/gemini-embed', content: { parts: [{ text: 'hello' }] }, task_type: 'RETRIEVAL_QUERY', output_dimensionality: 8 }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { embedding: { values: number[] }; usageMetadata: { promptTokenCount: number; cost: number } };
    expect(body.embedding.values).toEqual(geminiEmbeddingOf('gemini-embedding-001', 'hello', 'RETRIEVAL_QUERY', 8));
    expect(body.usageMetadata).toEqual({ promptTokenCount: 1, totalTokenCount: 1, cost: Number(tokenCharge(1, geminiPrice)) / 1e9 });
    const row = await readLogRow(gateway, response.headers.get('x-request-id')!);
    expect(row.endpoint).toBe('/models/{model}:embedContent');
  });

  it('lists an embedding model in Gemini’s model list with its embedding methods (models.get)', async () => {
    const model = await genai.models.get({ model: 'sim/gemini-embed' });
    expect(model).toMatchObject({ name: 'models/sim/gemini-embed', inputTokenLimit: 2048, supportedActions: ['embedContent', 'batchEmbedContents'] });
  });

  it('refuses bad requests in Google’s error shape, naming the field', async () => {
    const post = (action: string, body: unknown) =>
      fetch(`${gateway.url}/v1beta/models/sim/gemini-embed:${action}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': gateway.key }, body: JSON.stringify(body) });
    const cases: Array<[string, unknown, string]> = [
      ['embedContent', { content: { parts: [] } }, 'content.parts'],
      ['embedContent', { content: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AA==' } }] } }, 'content.parts[0].inlineData'],
      ['embedContent', { content: { parts: [{ text: 'x' }] }, taskType: 'GUESSING' }, 'taskType'],
      ['embedContent', { content: { parts: [{ text: 'x' }] }, outputDimensionality: 4096 }, 'dimensions'],
      ['batchEmbedContents', { requests: [{ model: 'models/other', content: { parts: [{ text: 'x' }] } }] }, 'requests[0].model'],
      ['batchEmbedContents', { requests: [{ content: { parts: [{ text: 'x' }] }, taskType: 'CLUSTERING' }, { content: { parts: [{ text: 'y' }] } }] }, 'requests[1].taskType'],
    ];
    for (const [action, body, field] of cases) {
      const response = await post(action, body);
      expect(response.status, field).toBe(400);
      const error = (await response.json()) as { error: { status: string; message: string } };
      expect(error.error.status).toBe('INVALID_ARGUMENT');
      expect(error.error.message).toContain(field);
    }
  });
});

describe('the openai SDK against a gemini-protocol embedding model', () => {
  it('embeddings.create answers the Gemini vectors (base64 by default), counted and charged as estimated', async () => {
    const openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const before = await readAccountMoney(gateway);
    const input = ['gateways route requests', 'vectors'];
    const answer = await openai.embeddings.create({ model: 'sim/gemini-embed', input, dimensions: 128 });
    expect(answer.data.map((entry) => entry.embedding)).toEqual(input.map((text) => Array.from(Float32Array.from(geminiEmbeddingOf('gemini-embedding-001', text, undefined, 128)))));
    const tokens = (await countTextTokens(input[0])) + (await countTextTokens(input[1]));
    expect(answer.usage).toMatchObject({ prompt_tokens: tokens, total_tokens: tokens });
    expect((await readAccountMoney(gateway)).usage - before.usage).toBe(tokenCharge(tokens, geminiPrice));
  });

  it('refuses token-array input for a Gemini model, naming input', async () => {
    const openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const failure = await openai.embeddings.create({ model: 'sim/gemini-embed', input: [[1, 2, 3]] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect((failure as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/input/);
  });
});

describe('recorded real answers replayed through the gateway', () => {
  it('takes Gemini’s usageMetadata.promptTokenCount where a batchEmbedContents answer carries it (vercel/ai recording)', async () => {
    replay.reset();
    replay.play(recording('gemini/batch-embed-usage.json'));
    const before = await readAccountMoney(gateway);
    const answer = await genai.models.embedContent({ model: 'rec/gemini-embed-2', contents: ['a cat', 'a dog'] });
    expect(answer.embeddings!.map((embedding) => embedding.values)).toEqual([[0.5138951, 0.857853], [-0.5045317, -0.8633931]]);
    expect(replay.requests[0].url).toBe('/v1beta/models/gemini-embedding-2:batchEmbedContents');
    expect(headerOf(answer, 'x-switchyard-token-count')).toBe('provider');
    expect((await readAccountMoney(gateway)).usage - before.usage).toBe(tokenCharge(12, geminiPrice));
  });

  it('charges a recorded Vertex :predict answer by its statistics.token_count (5 + 6)', async () => {
    replay.reset();
    replay.play(recording('gemini/vertex-predict-embeddings.json'));
    const before = await readAccountMoney(gateway);
    const answer = await genai.models.embedContent({ model: 'rec/vertex-embed', contents: ['sunny day at the beach', 'rainy day in the city'] });
    expect(answer.embeddings!.map((embedding) => embedding.values!.length)).toEqual([5, 5]);
    expect(replay.requests[0].url).toBe('/v1/projects/p/locations/global/publishers/google/models/textembedding-gecko%40001:predict');
    expect((await readAccountMoney(gateway)).usage - before.usage).toBe(tokenCharge(11, vertexPrice));
  });
});

describe('funds', () => {
  let broke: SimulatedGateway;
  beforeAll(async () => {
    broke = await startGeminiEmbeddingsGateway({ credits: 0 });
  });
  afterAll(async () => broke?.close());

  it('refuses with 402 before any provider is called', async () => {
    const client = new GoogleGenAI({ apiKey: broke.key, httpOptions: { baseUrl: broke.url } });
    const failure = await client.models.embedContent({ model: 'sim/gemini-embed', contents: ['one', 'two'] }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 402 });
    expect(broke.simulator.stats().requests).toBe(0);
    expect(broke.simulator.received()).toHaveLength(0);
  });
});
