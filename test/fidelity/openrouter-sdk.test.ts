import { OpenRouter } from '@openrouter/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * OpenRouter's own SDK against the gateway: it validates every answer with its schemas, so a
 * missing or mistyped field fails the call.
 */
let gateway: SimulatedGateway;
let client: OpenRouter;

beforeAll(async () => {
  // A model that retires, with its date in the catalog file.
  gateway = await startSimulatedGateway({
    catalogYaml: (url) => simulatedCatalogYaml(url).replace('  - id: sim/backup\n', '  - id: sim/backup\n    expiration_date: "2027-03-31"\n'),
  });
  client = new OpenRouter({ apiKey: gateway.key, serverURL: `${gateway.url}/v1`, retryConfig: { strategy: 'none' } });
});
afterAll(async () => gateway?.close());

const models = ['sim/openai-model', 'sim/anthropic-model', 'sim/gemini-model'];

describe('@openrouter/sdk', () => {
  it('lists the models (OpenAI’s list fields beside its own)', async () => {
    const { result: list } = await client.models.list();
    expect(list.totalCount).toBe(list.data.length);
    expect(list.links.next).toBeNull();
    const model = list.data.find((entry) => entry.id === 'sim/openai-model');
    expect(model).toMatchObject({ canonicalSlug: 'sim/openai-model', supportedVoices: null, defaultParameters: null });
    expect(model?.links.details).toBe(`${gateway.url}/v1/models/sim/openai-model/endpoints`);
  });

  it('pages through the models with offset and limit, following links.next', async () => {
    const first = await client.models.list({ offset: 0, limit: 2 });
    expect(first.result.data).toHaveLength(2);
    expect(first.result.links.next).toContain('offset=2');
    const seen = [];
    for await (const page of first) seen.push(...page.result.data.map((model) => model.id));
    const { result: all } = await client.models.list();
    expect(seen).toEqual(all.data.map((model) => model.id));
  });

  it.each(models)('sends a chat request to %s', async (model) => {
    const result = await client.chat.send({ chatRequest: { model, messages: [{ role: 'user', content: 'Say hello' }], stream: false } });
    if (!('choices' in result)) throw new Error('expected a complete chat result');
    expect(result.model).toBe(model);
    // An openai-wire model is relayed natively: the provider's own fingerprint (null when translated).
    expect(result.systemFingerprint).toBe(model === 'sim/openai-model' ? 'fp_simulator' : null);
    expect(result.choices[0]?.message.content).toMatch(/^Simulated reply from /);
    expect(result.usage?.completionTokens).toBe(16);
  });

  it.each(models)('streams a chat request to %s', async (model) => {
    const stream = await client.chat.send({ chatRequest: { model, messages: [{ role: 'user', content: 'Say hello' }], stream: true } });
    if ('choices' in stream) throw new Error('expected a stream');
    let text = '';
    let finish: string | null | undefined;
    let usage: { completionTokens?: number } | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finishReason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toMatch(/^Simulated reply from /);
    expect(finish).toBe('stop');
    expect(usage?.completionTokens).toBe(16);
  });

  it('shows when a model retires (expiration_date), and null when it does not', async () => {
    const { result: list } = await client.models.list();
    expect(list.data.find((model) => model.id === 'sim/backup')?.expirationDate).toBe('2027-03-31');
    expect(list.data.find((model) => model.id === 'sim/openai-model')?.expirationDate).toBeNull();
  });
});

describe('openai SDK models.list', () => {
  it('reads OpenAI’s fields on every listed model, owned_by the developer', async () => {
    const openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const listed = [];
    for await (const model of openai.models.list()) listed.push(model);
    expect(listed.map((model) => model.id)).toContain('sim/openai-model');
    for (const model of listed) {
      expect(model.object).toBe('model');
      expect(model.owned_by).toBe(model.id.split('/')[0]);
      expect(model.created).toEqual(expect.any(Number));
    }
  });
});

describe('openai SDK models.retrieve', () => {
  it('retrieves one model by its developer/model id, and 404s an unknown one', async () => {
    const openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const model = await openai.models.retrieve('sim/backup');
    expect(model).toMatchObject({ id: 'sim/backup', object: 'model', owned_by: 'sim', created: expect.any(Number), expiration_date: '2027-03-31' });
    const plain = await fetch(`${gateway.url}/v1/models/sim/openai-model`).then((response) => response.json());
    expect(plain).toMatchObject({ id: 'sim/openai-model', object: 'model', links: { details: `${gateway.url}/v1/models/sim/openai-model/endpoints` } });
    await expect(openai.models.retrieve('sim/nothing')).rejects.toMatchObject({ status: 404 });
  });
});
