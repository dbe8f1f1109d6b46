import { startSimulator, type Simulator } from '@switchyard/simulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EmbeddingRequest } from '../../src/core/embedding-request.js';
import { UpstreamError } from '../../src/errors/upstream-error.js';
import { readFixture } from '../../src/providers/bedrock/__fixtures__/read-fixture.js';
import { bedrockEmbeddingAdapter } from '../../src/providers/bedrock/create-embeddings.js';
import { embeddingAdapterOf } from '../../src/providers/retrieval-adapters.js';
import { bedrockCallContext } from '../helpers/bedrock-call-context.js';

/**
 * The Bedrock embeddings adapter against the simulator's InvokeModel routes (which check the
 * Titan and Cohere bodies as AWS documents them, and SigV4 signatures or the API key), and a
 * recorded Cohere Embed v4 answer replayed through it.
 */
let simulator: Simulator;
beforeAll(async () => {
  simulator = await startSimulator({ apiKey: 'sim-key' });
});
afterAll(() => simulator.close());
beforeEach(() => simulator.reset());

async function embed(auth: 'api-key' | 'sigv4', model: string, request: EmbeddingRequest) {
  const context = bedrockCallContext(simulator, auth, model);
  try {
    return await bedrockEmbeddingAdapter.embed(request, context);
  } finally {
    await context.close();
  }
}

const norm = (vector: number[]) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
const received = () => simulator.lastRequest('bedrock')!;

describe('Bedrock embeddings', () => {
  it('is the registered embeddings adapter of the bedrock protocol', () => {
    expect(embeddingAdapterOf('bedrock')).toBe(bedrockEmbeddingAdapter);
  });

  it('Titan v2: one text a call, dimensions and normalize in the body, tokens from inputTextTokenCount', async () => {
    expect(bedrockEmbeddingAdapter.maxInputsPerCall('amazon.titan-embed-text-v2:0')).toBe(1);
    const result = await embed('api-key', 'amazon.titan-embed-text-v2:0', { inputs: ['the quick brown fox'], dimensions: 512 });
    expect(received().path).toBe('/bedrock/model/amazon.titan-embed-text-v2%3A0/invoke');
    expect(received().headers.authorization).toBe('Bearer sim-key');
    expect(received().body).toEqual({ inputText: 'the quick brown fox', dimensions: 512, normalize: true });
    expect(result.vectors).toHaveLength(1);
    expect(result.vectors[0]).toHaveLength(512);
    expect(norm(result.vectors[0]!)).toBeCloseTo(1, 6);
    // The simulator counts a token per word.
    expect(result).toMatchObject({ promptTokens: 4, estimated: false });
  });

  it('Titan v2 signed with SigV4; without dimensions the model default (1024)', async () => {
    const result = await embed('sigv4', 'us.amazon.titan-embed-text-v2:0', { inputs: ['hello'] });
    expect(received().headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIASIMULATOREXAMPLE1\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
    expect(received().body).toEqual({ inputText: 'hello', normalize: true });
    expect(result.vectors[0]).toHaveLength(1024);
  });

  it('Titan: the same text gives the same vector, another text another', async () => {
    const [a, b, c] = await Promise.all(['alpha', 'alpha', 'beta'].map((text) => embed('api-key', 'amazon.titan-embed-text-v2:0', { inputs: [text], dimensions: 256 })));
    expect(a!.vectors[0]).toEqual(b!.vectors[0]);
    expect(a!.vectors[0]).not.toEqual(c!.vectors[0]);
  });

  it('Cohere Embed v3: up to 96 texts a call, input_type from the task, float vectors in order, tokens from the header', async () => {
    expect(bedrockEmbeddingAdapter.maxInputsPerCall('cohere.embed-english-v3')).toBe(96);
    const texts = ['first text here', 'second', 'a third one'];
    const result = await embed('sigv4', 'cohere.embed-english-v3', { inputs: texts, task: 'retrieval_query' });
    expect(received().path).toBe('/bedrock/model/cohere.embed-english-v3/invoke');
    expect(received().body).toEqual({ texts, input_type: 'search_query', truncate: 'NONE', embedding_types: ['float'] });
    expect(result.vectors.map((vector) => vector.length)).toEqual([1024, 1024, 1024]);
    expect(result).toMatchObject({ promptTokens: 3 + 1 + 3, estimated: false });
    const alone = await embed('sigv4', 'cohere.embed-english-v3', { inputs: ['second'], task: 'retrieval_query' });
    expect(alone.vectors[0]).toEqual(result.vectors[1]);
  });

  it.each([
    [undefined, 'search_document'],
    ['retrieval_document', 'search_document'],
    ['classification', 'classification'],
    ['clustering', 'clustering'],
    ['question_answering', 'search_query'],
    ['fact_verification', 'search_query'],
    ['semantic_similarity', 'clustering'],
  ] as const)('Cohere input_type for task %s is %s', async (task, inputType) => {
    await embed('api-key', 'cohere.embed-multilingual-v3', { inputs: ['x'], ...(task && { task }) });
    expect(received().body).toMatchObject({ input_type: inputType });
  });

  it('Cohere Embed v4: dimensions as output_dimension', async () => {
    const result = await embed('api-key', 'cohere.embed-v4:0', { inputs: ['one', 'two'], dimensions: 512 });
    expect(received().body).toMatchObject({ output_dimension: 512, embedding_types: ['float'] });
    expect(result.vectors.map((vector) => vector.length)).toEqual([512, 512]);
  });

  it('Cohere without the token header: the tokens are estimated and marked so', async () => {
    await simulator.setFault({ match: { protocol: 'bedrock' }, fault: { no_usage: true }, times: 1 });
    const result = await embed('api-key', 'cohere.embed-english-v3', { inputs: ['abcdefgh', 'abc'] });
    // One token per four UTF-8 bytes, at least one per text.
    expect(result).toMatchObject({ promptTokens: 3, estimated: true });
  });

  it('a recorded Cohere Embed v4 answer (vercel/ai) replays through the adapter', async () => {
    simulator.play({ protocol: 'bedrock', contentType: 'application/json', body: readFixture('cohere-embed-v4.json') });
    const result = await embed('api-key', 'cohere.embed-v4:0', { inputs: ['hello', 'world'], dimensions: 256 });
    expect(result.vectors).toHaveLength(2);
    expect(result.vectors.map((vector) => vector.length)).toEqual([256, 256]);
    expect(result.vectors[0]!.slice(0, 2)).toEqual([0.037705604, 0.032946646]);
    expect(result.vectors[1]!.at(-1)).toBe(-0.025449762);
    // The recording has no X-Amzn-Bedrock-Input-Token-Count header: estimated.
    expect(result).toMatchObject({ promptTokens: 4, estimated: true });
  });

  it('refuses by name what Bedrock cannot take', () => {
    const incapability = (request: EmbeddingRequest, model: string) => bedrockEmbeddingAdapter.incapability(request, model);
    expect(incapability({ inputs: [[1, 2, 3]] }, 'amazon.titan-embed-text-v2:0')).toMatchObject({ field: 'input' });
    expect(incapability({ inputs: ['x'], dimensions: 300 }, 'amazon.titan-embed-text-v2:0')).toMatchObject({ field: 'dimensions', reason: expect.stringContaining('1024, 512, 256') });
    expect(incapability({ inputs: ['x'], dimensions: 512 }, 'cohere.embed-english-v3')).toMatchObject({ field: 'dimensions' });
    expect(incapability({ inputs: ['x'], dimensions: 1536 }, 'cohere.embed-v4:0')).toBeUndefined();
    expect(incapability({ inputs: ['x'] }, 'amazon.nova-pro-v1:0')).toMatchObject({ field: 'model' });
    expect(incapability({ inputs: ['x'], dimensions: 256 }, 'arn:aws:bedrock:us-east-1::foundation-model/amazon.titan-embed-text-v2:0')).toBeUndefined();
  });

  it("Bedrock's throttling is a retryable UpstreamError; a wrong key is refused", async () => {
    await simulator.setFault({ match: { protocol: 'bedrock' }, fault: { status: 429 }, times: 1 });
    const throttled = await embed('api-key', 'amazon.titan-embed-text-v2:0', { inputs: ['x'] }).catch((error: unknown) => error);
    expect(throttled).toBeInstanceOf(UpstreamError);
    expect(throttled).toMatchObject({ status: 429, retryable: true, message: expect.stringContaining('ThrottlingException') });

    const context = bedrockCallContext(simulator, 'api-key', 'amazon.titan-embed-text-v2:0');
    context.provider.auth = { kind: 'bearer', token: 'wrong' };
    const refused = await bedrockEmbeddingAdapter.embed({ inputs: ['x'] }, context).catch((error: unknown) => error);
    await context.close();
    expect(refused).toMatchObject({ status: 403, message: expect.stringContaining('UnrecognizedClientException') });
  });
});

describe("the simulator's Bedrock embedding routes", () => {
  const post = (model: string, body: unknown) =>
    fetch(`${simulator.url}/bedrock/model/${encodeURIComponent(model)}/invoke`, { method: 'POST', headers: { authorization: 'Bearer sim-key', 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('refuses what AWS refuses, with a ValidationException', async () => {
    for (const [model, body, message] of [
      ['amazon.titan-embed-text-v2:0', { inputText: 'x', dimensions: 300 }, /dimensions/],
      ['amazon.titan-embed-text-v2:0', { inputText: 'x', model: 'y' }, /extraneous key \[model\]/],
      ['cohere.embed-english-v3', { texts: ['x'] }, /required key \[input_type\]/],
      ['cohere.embed-english-v3', { texts: Array.from({ length: 97 }, () => 'x'), input_type: 'search_query' }, /maximum item count: 96/],
    ] as const) {
      const response = await post(model, body);
      expect(response.status).toBe(400);
      expect(response.headers.get('x-amzn-errortype')).toMatch(/^ValidationException:/);
      expect(((await response.json()) as { message: string }).message).toMatch(message);
    }
  });

  it('answers Cohere without embedding_types as embeddings_floats', async () => {
    const response = await post('cohere.embed-english-v3', { texts: ['a b'], input_type: 'clustering' });
    expect(response.headers.get('x-amzn-bedrock-input-token-count')).toBe('2');
    const body = (await response.json()) as { response_type: string; embeddings: number[][] };
    expect(body.response_type).toBe('embeddings_floats');
    expect(body.embeddings[0]).toHaveLength(1024);
  });
});
