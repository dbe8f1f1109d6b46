import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddingOf } from '@switchyard/simulator';
import type { SimulatedGateway } from '../helpers/simulated-gateway.js';
import { startEmbeddingsGateway, tokenCharge, smallPrice, readMoney } from './embeddings-gateway.js';

describe('POST /v1/embeddings through the openai SDK', () => {
  let gateway: SimulatedGateway;
  let client: OpenAI;
  beforeAll(async () => {
    gateway = await startEmbeddingsGateway();
    client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => gateway?.close());

  it('embeds with the SDK defaults (base64 on the wire), the vectors the simulator made, charged tokens × price', async () => {
    const before = await readMoney(gateway);
    const { data: answer, response } = await client.embeddings.create({ model: 'sim/embed-small', input: ['the quick brown fox', 'jumps over'] }).withResponse();
    expect(answer.data).toHaveLength(2);
    expect(answer.data[0].embedding).toHaveLength(1536);
    expect(answer.data[0].embedding).toEqual(Array.from(embeddingOf('the quick brown fox', 1536)));
    expect(answer.data[1].embedding).toEqual(Array.from(embeddingOf('jumps over', 1536)));
    expect(answer.usage).toMatchObject({ prompt_tokens: 6, total_tokens: 6 });
    expect(answer.model).toBe('sim/embed-small');
    const cost = tokenCharge(6, smallPrice);
    expect(response.headers.get('x-switchyard-cost')).toBe(String(Number(cost) / 1e9));
    const after = await readMoney(gateway);
    expect(after.usage - before.usage).toBe(cost);
    expect(after.reserved).toBe(0n);
  });
});
