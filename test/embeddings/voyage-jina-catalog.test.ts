import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { usdToNano } from '../../src/core/money.js';

/** The built-in catalog's Voyage and Jina entries load, on their providers, with their list prices and sizes. */
describe('built-in catalog: Voyage AI and Jina AI', () => {
  const config = loadConfig({ VOYAGE_API_KEY: 'voyage-key', JINA_API_KEY: 'jina-key' }, tmpdir());

  it('has the two providers on their protocols, with bearer keys', () => {
    expect(config.providers.find((provider) => provider.id === 'voyage')).toMatchObject({ api: 'voyage', baseUrl: 'https://api.voyageai.com/v1', auth: { kind: 'bearer', token: 'voyage-key' } });
    expect(config.providers.find((provider) => provider.id === 'jina')).toMatchObject({ api: 'jina', baseUrl: 'https://api.jina.ai/v1', auth: { kind: 'bearer', token: 'jina-key' } });
  });

  it.each([
    ['voyage/voyage-3.5', 0.06, { dimensions: 1024, outputDimensions: [256, 512, 1024, 2048] }],
    ['voyage/voyage-3.5-lite', 0.02, { dimensions: 1024, outputDimensions: [256, 512, 1024, 2048] }],
    ['voyage/rerank-2.5', 0.05, undefined],
    ['jina/jina-embeddings-v3', 0.02, { dimensions: 1024, outputDimensions: 'any' }],
    ['jina/jina-reranker-v2-base-multilingual', 0.05, undefined],
  ] as const)('%s at $%s per 1M tokens', (id, price, embedding) => {
    const model = config.models.find((one) => one.id === id)!;
    expect(model.endpoints[0]!.pricing.prompt).toBe(usdToNano(price));
    if (embedding) expect(model.embedding).toMatchObject(embedding);
  });
});
