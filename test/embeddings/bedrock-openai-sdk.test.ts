import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';
import { bedrockPrices, readAccountMoney, requestRow, startBedrockRetrievalGateway, tokenCharge } from '../helpers/bedrock-retrieval-gateway.js';

/**
 * The openai SDK's `embeddings.create`, with its defaults, through the gateway to Bedrock's
 * Titan Text Embeddings V2 (SigV4) and Cohere Embed (API key) on the simulator's InvokeModel
 * routes: vectors in order, the provider's token counts, and tokens × price in the ledger and the
 * request log.
 */
for (const database of testDatabases()) {
  describe(`openai embeddings.create on Bedrock models (${database.name})`, () => {
    let gateway: SimulatedGateway;
    let client: OpenAI;
    beforeAll(async () => {
      gateway = await startBedrockRetrievalGateway({ databaseUrl: database.url });
      client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    });
    afterAll(() => gateway?.close());
    beforeEach(() => gateway.simulator.reset());

    const bedrockCalls = () => gateway.simulator.received().filter((entry) => entry.protocol === 'bedrock');

    it('Titan v2: one InvokeModel call per input, signed, dimensions sent, tokens × $0.02/1M charged', async () => {
      const before = await readAccountMoney(gateway);
      const { data: answer, response } = await client.embeddings.create({ model: 'bedrock/titan-embed', input: ['the quick brown fox', 'jumps over'], dimensions: 256 }).withResponse();
      expect(answer.data.map((entry) => [entry.index, entry.embedding.length])).toEqual([
        [0, 256],
        [1, 256],
      ]);
      expect(answer.usage).toMatchObject({ prompt_tokens: 6, total_tokens: 6, cost: Number(tokenCharge(6, bedrockPrices.titan)) / 1e9 });
      const calls = bedrockCalls();
      expect(calls.map((call) => call.path)).toEqual(['/bedrock/model/amazon.titan-embed-text-v2%3A0/invoke', '/bedrock/model/amazon.titan-embed-text-v2%3A0/invoke']);
      expect(calls.map((call) => call.body)).toEqual([
        { inputText: 'the quick brown fox', dimensions: 256, normalize: true },
        { inputText: 'jumps over', dimensions: 256, normalize: true },
      ]);
      expect(calls[0]!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIASIMULATOREXAMPLE1\//);
      const cost = tokenCharge(6, bedrockPrices.titan);
      expect(response.headers.get('x-switchyard-cost')).toBe(String(Number(cost) / 1e9));
      expect(response.headers.get('x-switchyard-provider')).toBe('bedrock-sigv4');
      const after = await readAccountMoney(gateway);
      expect(after.usage - before.usage).toBe(cost);
      expect(after.reserved).toBe(0n);
      const row = await requestRow(gateway, response.headers.get('x-request-id')!);
      expect(row).toMatchObject({ endpoint: '/embeddings', model: 'bedrock/titan-embed', provider: 'bedrock-sigv4', status: 'completed' });
      expect([Number(row!.prompt_tokens), Number(row!.completion_tokens)]).toEqual([6, 0]);
      expect(BigInt(row!.cost)).toBe(cost);
      expect(Number(row!.estimated)).toBe(0);
    });

    it('Titan: the same input gives the same vector in a batch and alone', async () => {
      const batch = await client.embeddings.create({ model: 'bedrock/titan-embed', input: ['alpha', 'beta'], encoding_format: 'float' });
      const alone = await client.embeddings.create({ model: 'bedrock/titan-embed', input: 'beta', encoding_format: 'float' });
      expect(alone.data[0]!.embedding).toEqual(batch.data[1]!.embedding);
      expect(batch.data[0]!.embedding).not.toEqual(batch.data[1]!.embedding);
      expect(batch.data[0]!.embedding).toHaveLength(1024);
    });

    it('Cohere Embed on Bedrock: 100 inputs in two calls of 96 and 4, in order, tokens from the header × $0.10/1M', async () => {
      const inputs = Array.from({ length: 100 }, (_, index) => `text number ${index}`);
      const before = await readAccountMoney(gateway);
      const { data: answer, response } = await client.embeddings.create({ model: 'bedrock/cohere-embed', input: inputs }).withResponse();
      expect(answer.data).toHaveLength(100);
      expect(answer.data.map((entry) => entry.index)).toEqual(inputs.map((_, index) => index));
      const calls = bedrockCalls();
      expect(calls.map((call) => (call.body as { texts: string[] }).texts.length)).toEqual([96, 4]);
      expect(calls[0]!.body).toMatchObject({ input_type: 'search_document', embedding_types: ['float'], truncate: 'NONE' });
      expect(calls[0]!.headers.authorization).toBe('Bearer sim-key');
      // The simulator counts a token per word: three a text.
      expect(answer.usage).toMatchObject({ prompt_tokens: 300, total_tokens: 300, cost: Number(tokenCharge(300, bedrockPrices.cohereEmbed)) / 1e9 });
      const alone = await client.embeddings.create({ model: 'bedrock/cohere-embed', input: inputs[97]!, encoding_format: 'float' });
      const batch = await client.embeddings.create({ model: 'bedrock/cohere-embed', input: inputs, encoding_format: 'float' });
      expect(batch.data[97]!.embedding).toEqual(alone.data[0]!.embedding);
      const cost = tokenCharge(300, bedrockPrices.cohereEmbed);
      expect(response.headers.get('x-switchyard-cost')).toBe(String(Number(cost) / 1e9));
      const row = await requestRow(gateway, response.headers.get('x-request-id')!);
      expect(row).toMatchObject({ model: 'bedrock/cohere-embed', provider: 'bedrock-key' });
      expect(Number(row!.prompt_tokens)).toBe(300);
      expect(BigInt(row!.cost)).toBe(cost);
      const after = await readAccountMoney(gateway);
      expect(after.usage - before.usage).toBe(cost + tokenCharge(3, bedrockPrices.cohereEmbed) + tokenCharge(300, bedrockPrices.cohereEmbed));
    });

    it('Cohere Embed without the token header: charged on the estimate, marked estimated', async () => {
      gateway.simulator.setFault({ match: { protocol: 'bedrock' }, fault: { no_usage: true }, times: 1 });
      const { data: answer, response } = await client.embeddings.create({ model: 'bedrock/cohere-embed', input: ['abcdefgh', 'abc'] }).withResponse();
      // One token per four UTF-8 bytes, at least one a text.
      expect(answer.usage.prompt_tokens).toBe(3);
      const row = await requestRow(gateway, response.headers.get('x-request-id')!);
      expect(Number(row!.estimated)).toBe(1);
      expect(BigInt(row!.cost)).toBe(tokenCharge(3, bedrockPrices.cohereEmbed));
    });

    it('refuses a size Titan does not make, naming the field, before any call', async () => {
      const error = await client.embeddings.create({ model: 'bedrock/titan-embed', input: 'x', dimensions: 300 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(String((error as Error).message)).toMatch(/dimensions/);
      expect(bedrockCalls()).toHaveLength(0);
    });
  });
}
