import { readFileSync } from 'node:fs';
import { createCohere } from '@ai-sdk/cohere';
import { embedMany } from 'ai';
import { CohereClientV2, CohereError } from 'cohere-ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readAccountMoney, sendJson, startCohereGateway } from '../helpers/cohere-gateway.js';
import type { SimulatedGateway } from '../helpers/simulated-gateway.js';

const recordedEmbed = readFileSync(new URL('../../src/providers/cohere/__fixtures__/cohere-embed.json', import.meta.url), 'utf8');
/** Embed 4 at $0.12 per 1M tokens, in nano-USD per 1M. */
const embedV4PerMillion = 120_000_000n;

let gateway: SimulatedGateway;
let openai: OpenAI;

beforeAll(async () => {
  gateway = await startCohereGateway();
  openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1` });
});
afterAll(async () => {
  await gateway?.close();
});
beforeEach(() => gateway.simulator.reset());

interface CohereEmbedBody {
  model: string;
  texts: string[];
  input_type: string;
  embedding_types: string[];
  output_dimension?: number;
}

describe("the openai SDK's embeddings.create on a Cohere model (protocol cohere, POST /v2/embed)", () => {
  it('answers one vector per input, Cohere counting the tokens, charged tokens × price exactly', async () => {
    const before = await readAccountMoney(gateway);
    const input = ['sunny day at the beach', 'rainy day in the city', 'a third text'];
    const answer = await openai.embeddings.create({ model: 'cohere/embed-v4.0', input });
    expect(answer.data.map((entry) => entry.index)).toEqual([0, 1, 2]);
    for (const entry of answer.data) expect(entry.embedding).toHaveLength(1536);
    // The simulator counts words: 5 + 5 + 3.
    expect(answer.usage.prompt_tokens).toBe(13);
    const sent = gateway.simulator.lastRequest('cohere')!;
    expect(sent.path).toBe('/cohere/v2/embed');
    expect(sent.headers.authorization).toBe('Bearer sim-key');
    expect(sent.body).toEqual({ model: 'embed-v4.0', texts: input, input_type: 'search_document', embedding_types: ['float'] });
    const after = await readAccountMoney(gateway);
    expect(after.usage - before.usage).toBe((13n * embedV4PerMillion + 999_999n) / 1_000_000n);
    expect(after.reserved).toBe(0n);
  });

  it('asks Embed 4 for the dimensions requested (output_dimension)', async () => {
    const answer = await openai.embeddings.create({ model: 'cohere/embed-v4.0', input: 'shorter', dimensions: 256 });
    expect(answer.data[0].embedding).toHaveLength(256);
    expect((gateway.simulator.lastRequest('cohere')!.body as CohereEmbedBody).output_dimension).toBe(256);
  });

  it('refuses dimensions a Cohere model does not list, naming the field, before any call', async () => {
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/embeddings', { model: 'cohere/embed-english-v3.0', input: 'x', dimensions: 256 });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe('dimensions');
    expect(gateway.simulator.stats().protocols.cohere.requests).toBe(0);
  });

  it('splits more than 96 inputs into calls of at most 96 and answers the vectors in input order', async () => {
    const input = Array.from({ length: 100 }, (_, index) => `text number ${index}`);
    const answer = await openai.embeddings.create({ model: 'cohere/embed-english-v3.0', input });
    expect(answer.data).toHaveLength(100);
    const calls = gateway.simulator.received().map((entry) => (entry.body as CohereEmbedBody).texts.length);
    expect(calls.sort((a, b) => b - a)).toEqual([96, 4]);
    // The simulator's vectors depend only on the text: the 98th input alone gives the same vector.
    const alone = await openai.embeddings.create({ model: 'cohere/embed-english-v3.0', input: input[97] });
    expect(answer.data[97].embedding).toEqual(alone.data[0].embedding);
    expect(answer.usage.prompt_tokens).toBe(300);
  });

  it('refuses token arrays, which Cohere does not take, naming input', async () => {
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/embeddings', { model: 'cohere/embed-v4.0', input: [[1, 2, 3]] });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe('input');
    expect(gateway.simulator.stats().protocols.cohere.requests).toBe(0);
  });

  it('replays a recorded Cohere embed answer (vercel/ai fixture): its vectors, its 10 billed tokens, charged exactly', async () => {
    gateway.simulator.play({ protocol: 'cohere', contentType: 'application/json', body: recordedEmbed });
    const before = await readAccountMoney(gateway);
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/embeddings', { model: 'cohere/embed-v4.0', input: ['sunny day at the beach', 'rainy day in the city'] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { embedding: number[] }[]; usage: { prompt_tokens: number } };
    const recorded = JSON.parse(recordedEmbed) as { embeddings: { float: number[][] } };
    expect(body.data.map((entry) => entry.embedding)).toEqual(recorded.embeddings.float);
    expect(body.usage.prompt_tokens).toBe(10);
    // 10 tokens at $0.12 per 1M: 1,200 nano-USD.
    expect((await readAccountMoney(gateway)).usage - before.usage).toBe(1_200n);
  });

  it('maps a Cohere error into the envelope with x-request-id, charging nothing', async () => {
    gateway.simulator.setFault({ match: { protocol: 'cohere' }, fault: { status: 422 }, times: 1 });
    const before = await readAccountMoney(gateway);
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/embeddings', { model: 'cohere/embed-v4.0', input: 'x' });
    expect(response.status).toBeGreaterThanOrEqual(400);
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(/^req_/);
    const body = (await response.json()) as { error: { message: string; metadata: { request_id: string } } };
    expect(body.error.metadata.request_id).toBe(requestId);
    expect((await readAccountMoney(gateway)).usage).toBe(before.usage);
  });
});

describe("cohere-ai's embed (CohereClientV2, POST /v2/embed) pointed at the gateway", () => {
  it('answers float vectors and billed tokens in Cohere\'s shape, input_type and output_dimension passed through, charged exactly', async () => {
    const cohere = new CohereClientV2({ token: gateway.key, environment: gateway.url });
    const before = await readAccountMoney(gateway);
    const texts = ['what is the capital of france', 'paris'];
    const { data, rawResponse } = await cohere.embed({ model: 'cohere/embed-v4.0', texts, inputType: 'search_query', embeddingTypes: ['float'], outputDimension: 512 }).withRawResponse();
    expect(data.embeddings.float).toHaveLength(2);
    for (const vector of data.embeddings.float!) expect(vector).toHaveLength(512);
    expect(data.texts).toEqual(texts);
    // The simulator counts words: 6 + 1.
    expect(data.meta?.billedUnits?.inputTokens).toBe(7);
    expect(gateway.simulator.lastRequest('cohere')!.body).toEqual({ model: 'embed-v4.0', texts, input_type: 'search_query', embedding_types: ['float'], output_dimension: 512 });
    const cost = (7n * embedV4PerMillion + 999_999n) / 1_000_000n;
    expect(rawResponse.headers.get('x-switchyard-cost')).toBe(String(Number(cost) / 1e9));
    expect((await readAccountMoney(gateway)).usage - before.usage).toBe(cost);
  });

  it('refuses embedding types other than float, naming the field, before any provider call', async () => {
    const cohere = new CohereClientV2({ token: gateway.key, environment: gateway.url });
    const error = await cohere.embed({ model: 'cohere/embed-v4.0', texts: ['a'], inputType: 'search_document', embeddingTypes: ['int8'] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CohereError);
    expect((error as CohereError).statusCode).toBe(400);
    expect(JSON.stringify((error as CohereError).body)).toContain('embedding_types');
    expect(gateway.simulator.stats().protocols.cohere.requests).toBe(0);
  });
});

describe("the AI SDK's embedMany over @ai-sdk/cohere pointed at the gateway's Cohere routes", () => {
  it('embeds with its defaults (input_type search_query) and reads the billed tokens', async () => {
    const cohere = createCohere({ baseURL: `${gateway.url}/v2`, apiKey: gateway.key });
    const values = ['sunny day at the beach', 'rainy day in the city'];
    const { embeddings, usage } = await embedMany({ model: cohere.embedding('cohere/embed-english-v3.0'), values });
    expect(embeddings).toHaveLength(2);
    for (const vector of embeddings) expect(vector).toHaveLength(1024);
    expect(usage.tokens).toBe(10);
    expect(gateway.simulator.lastRequest('cohere')!.body).toMatchObject({ model: 'embed-english-v3.0', texts: values, input_type: 'search_query' });
  });
});

