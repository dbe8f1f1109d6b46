import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { retrievalCatalogYaml } from './retrieval-catalog-yaml.js';

interface ListedModel {
  id: string;
  architecture: { output_modalities: string[]; modality: string };
  pricing: Record<string, string>;
  endpoints: string[];
}

describe('the catalog views of embedding, rerank and moderation models', () => {
  let gateway: SimulatedGateway;
  const get = async <T>(path: string, key?: string): Promise<T> => {
    const response = await sendJson(gateway, key, 'GET', path);
    expect(response.status, path).toBe(200);
    return (await response.json()) as T;
  };

  beforeAll(async () => {
    gateway = await startSimulatedGateway({ catalogYaml: retrievalCatalogYaml });
  });
  afterAll(() => gateway?.close());

  it('filters /models by output_modalities embeddings, rerank and moderation (and counts them alike)', async () => {
    const ids = async (filter: string) => (await get<{ data: ListedModel[] }>(`/v1/models?output_modalities=${filter}`)).data.map((model) => model.id);
    expect(await ids('embeddings')).toEqual(['openai/text-embedding-3-small']);
    expect(await ids('rerank')).toEqual(['cohere/rerank-v3.5', 'voyage/rerank-2.5', 'jina/jina-reranker-v2-base-multilingual']);
    expect(await ids('moderation')).toEqual(['openai/omni-moderation-latest']);
    expect(await ids('embeddings,moderation')).toEqual(['openai/text-embedding-3-small', 'openai/omni-moderation-latest']);
    expect(await ids('text')).toEqual(['sim/chat']);
    expect((await get<{ data: { count: number } }>('/v1/models/count?output_modalities=rerank')).data.count).toBe(3);
  });

  it('lists each kind with its endpoint and unit price in /models', async () => {
    const { data } = await get<{ data: ListedModel[] }>('/v1/models');
    const byId = new Map(data.map((model) => [model.id, model]));
    const embedder = byId.get('openai/text-embedding-3-small')!;
    expect(embedder.endpoints).toEqual(['embeddings']);
    expect(embedder.architecture.modality).toBe('text->embeddings');
    // 0.02 USD per 1M tokens, per token.
    expect(embedder.pricing.prompt).toBe('0.00000002');
    expect(embedder.pricing).not.toHaveProperty('search');
    const rerank = byId.get('cohere/rerank-v3.5')!;
    expect(rerank.endpoints).toEqual(['rerank']);
    expect(rerank.pricing.search).toBe('0.002');
    expect(rerank.pricing.prompt).toBe('0');
    expect(byId.get('openai/omni-moderation-latest')!.endpoints).toEqual(['moderations']);
    expect(byId.get('openai/omni-moderation-latest')!.pricing).toMatchObject({ prompt: '0', completion: '0' });
  });

  it('shows the endpoints of each kind with their pricing, search per search and prompt per token', async () => {
    type Endpoints = { data: { id: string; api_endpoints: string[]; endpoints: Array<{ provider: string; provider_name: string; pricing: Record<string, string>; status: string }> } };
    const cohere = await get<Endpoints>('/v1/models/cohere/rerank-v3.5/endpoints');
    expect(cohere.data.api_endpoints).toEqual(['rerank']);
    expect(cohere.data.endpoints).toEqual([expect.objectContaining({ provider: 'cohere', provider_name: 'Cohere', status: 'available', pricing: expect.objectContaining({ search: '0.002', prompt: '0' }) })]);
    const jina = await get<Endpoints>('/v1/models/jina/jina-reranker-v2-base-multilingual/endpoints');
    expect(jina.data.endpoints[0].pricing.search).toBe('0.0005');
    const voyage = await get<Endpoints>('/v1/models/voyage/rerank-2.5/endpoints');
    expect(voyage.data.endpoints[0]).toMatchObject({ provider: 'voyage', pricing: { prompt: '0.00000005' } });
    expect(voyage.data.endpoints[0].pricing).not.toHaveProperty('search');
    const embedder = await get<Endpoints>('/v1/models/openai/text-embedding-3-small/endpoints');
    expect(embedder.data.endpoints[0].pricing.prompt).toBe('0.00000002');
    const moderation = await get<Endpoints>('/v1/models/openai/omni-moderation-latest/endpoints');
    expect(moderation.data.api_endpoints).toEqual(['moderations']);
  });

  it('lists the cohere, voyage and jina providers in /providers with their prices', async () => {
    const { data } = await get<{ data: Array<{ model: string; providers: Array<{ provider: string; provider_name: string; pricing: Record<string, string> }> }> }>('/v1/providers', gateway.key);
    const providersOf = (model: string) => data.find((entry) => entry.model === model)?.providers;
    expect(providersOf('cohere/rerank-v3.5')).toEqual([expect.objectContaining({ provider: 'cohere', provider_name: 'Cohere', pricing: expect.objectContaining({ search: '0.002' }) })]);
    expect(providersOf('voyage/rerank-2.5')).toEqual([expect.objectContaining({ provider: 'voyage', provider_name: 'Voyage AI' })]);
    expect(providersOf('jina/jina-reranker-v2-base-multilingual')).toEqual([expect.objectContaining({ provider: 'jina', provider_name: 'Jina AI', pricing: expect.objectContaining({ search: '0.0005' }) })]);
    expect(providersOf('openai/omni-moderation-latest')).toEqual([expect.objectContaining({ provider: 'sim-openai' })]);
  });

  it('lets an account pick the default provider of a rerank model', async () => {
    const response = await sendJson(gateway, gateway.key, 'PATCH', '/v1/providers', { model: 'cohere/rerank-v3.5', provider: 'cohere' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown }).data).toEqual({ model: 'cohere/rerank-v3.5', default_provider: 'cohere' });
  });
});
