import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { OpenAIEmbeddings } from '@langchain/openai';
import { embed, embedMany } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddingOf } from '@switchyard/simulator';
import type { SimulatedGateway } from '../helpers/simulated-gateway.js';
import { readMoney, smallPrice, startEmbeddingsGateway, tokenCharge } from './embeddings-gateway.js';

const vectorOf = (text: string, size = 1536) => Array.from(embeddingOf(text, size));

/** The AI SDK (over its OpenAI-compatible and OpenAI providers) and LangChain's OpenAIEmbeddings, with their defaults, by base URL. */
describe('embedding clients through the gateway', () => {
  let gateway: SimulatedGateway;
  beforeAll(async () => {
    gateway = await startEmbeddingsGateway();
  });
  afterAll(() => gateway?.close());

  describe('AI SDK', () => {
    const providers = {
      '@ai-sdk/openai-compatible': () => createOpenAICompatible({ name: 'switchyard', baseURL: `${gateway.url}/v1`, apiKey: gateway.key }).textEmbeddingModel('sim/embed-small'),
      '@ai-sdk/openai': () => createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key }).embedding('sim/embed-small'),
    };

    it.each(Object.keys(providers) as Array<keyof typeof providers>)('embed and embedMany over %s, with usage and the exact charge', async (name) => {
      const model = providers[name]();
      const before = await readMoney(gateway);
      const one = await embed({ model, value: 'sunny day at the beach', maxRetries: 0 });
      expect(one.embedding).toEqual(vectorOf('sunny day at the beach'));
      expect(one.usage.tokens).toBe(5);
      const values = ['sunny day at the beach', 'rainy day in the city', 'snow'];
      const many = await embedMany({ model, values, maxRetries: 0 });
      expect(many.embeddings).toEqual(values.map((value) => vectorOf(value)));
      expect(many.usage.tokens).toBe(11);
      expect((await readMoney(gateway)).usage - before.usage).toBe(tokenCharge(5, smallPrice) + tokenCharge(11, smallPrice));
    });
  });

  describe("LangChain's OpenAIEmbeddings", () => {
    const embeddings = () => new OpenAIEmbeddings({ model: 'sim/embed-small', apiKey: gateway.key, configuration: { baseURL: `${gateway.url}/v1` }, maxRetries: 0 });

    it('embedQuery answers the query vector (new lines made spaces, as LangChain does by default)', async () => {
      expect(await embeddings().embedQuery('what is\nthe weather')).toEqual(vectorOf('what is the weather'));
    });

    it('embedDocuments over more than its default batch of 512: two gateway requests, vectors in order, charged per request', async () => {
      const documents = Array.from({ length: 600 }, (_, index) => `document number ${index}`);
      gateway.simulator.reset();
      const before = await readMoney(gateway);
      const vectors = await embeddings().embedDocuments(documents);
      expect(vectors).toHaveLength(600);
      for (const index of [0, 511, 512, 599]) expect(vectors[index]).toEqual(vectorOf(documents[index]));
      expect(gateway.simulator.stats().protocols.openai.models['text-embedding-3-small']).toBe(2);
      expect((await readMoney(gateway)).usage - before.usage).toBe(tokenCharge(512 * 3, smallPrice) + tokenCharge(88 * 3, smallPrice));
    });

    it('passes dimensions', async () => {
      const short = new OpenAIEmbeddings({ model: 'sim/embed-small', dimensions: 32, apiKey: gateway.key, configuration: { baseURL: `${gateway.url}/v1` }, maxRetries: 0 });
      expect(await short.embedQuery('short')).toEqual(vectorOf('short', 32));
    });
  });
});
