import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/** The Messages web search server tool: each provider's own search where it has one, a clear 400 elsewhere. */
describe('the web_search server tool on /messages', () => {
  let gateway: SimulatedGateway;
  let client: Anthropic;
  const searchTool = { type: 'web_search_20250305' as const, name: 'web_search' as const, max_uses: 2, user_location: { type: 'approximate' as const, city: 'Oslo' } };

  beforeAll(async () => {
    gateway = await startSimulatedGateway({
      catalogYaml: (url) =>
        simulatedCatalogYaml(url).replace(/(model: (?:gpt-sim|claude-sim|gemini-sim)\n.*\n\s+supported_parameters: \[[^\]]*)\]/g, '$1, web_search]'),
    });
    client = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
  });
  afterAll(async () => gateway.close());

  it.each([
    ['sim/openai-model', 'openai', (body: any) => expect(body.web_search_options).toEqual({ user_location: { type: 'approximate', approximate: { city: 'Oslo' } } })],
    ['sim/anthropic-model', 'anthropic', (body: any) => expect(body.tools).toContainEqual(searchTool)],
    ['sim/gemini-model', 'gemini', (body: any) => expect(body.tools).toContainEqual({ googleSearch: {} })],
  ] as const)('reaches %s as that provider\'s own search', async (model, protocol, check) => {
    const message = await client.messages.create({ model, max_tokens: 50, messages: [{ role: 'user', content: 'news today' }], tools: [searchTool] });
    expect(message.content.length).toBeGreaterThan(0);
    check(gateway.simulator.lastRequest(protocol)?.body);
  });

  it('is refused on a model without search, with the models that have one', async () => {
    const error = await client.messages.create({ model: 'sim/backup', max_tokens: 50, messages: [{ role: 'user', content: 'x' }], tools: [searchTool] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as Error).message).toContain('sim/openai-model, sim/anthropic-model, sim/gemini-model');
  });

  describe('with a domain filter', () => {
    type Filter = { allowed_domains?: string[]; blocked_domains?: string[] };
    it.each<[string, Filter]>([
      ['allowed_domains', { allowed_domains: ['example.com'] }],
      ['blocked_domains', { blocked_domains: ['spam.example'] }],
    ])('forwards %s to an anthropic-wire model as Anthropic defines it', async (_field, filter) => {
      gateway.simulator.reset();
      const tool = { ...searchTool, ...filter };
      const message = await client.messages.create({ model: 'sim/anthropic-model', max_tokens: 50, messages: [{ role: 'user', content: 'news today' }], tools: [tool] });
      expect(message.content.length).toBeGreaterThan(0);
      expect(gateway.simulator.lastRequest('anthropic')?.body).toMatchObject({ tools: [tool] });
    });

    it.each<[string, string, Filter]>([
      ['sim/openai-model', 'allowed_domains', { allowed_domains: ['example.com'] }],
      ['sim/openai-model', 'blocked_domains', { blocked_domains: ['spam.example'] }],
      ['sim/gemini-model', 'allowed_domains', { allowed_domains: ['example.com'] }],
      ['sim/gemini-model', 'blocked_domains', { blocked_domains: ['spam.example'] }],
    ])('refuses it on %s, whose search cannot take %s, naming the field, the model, why and the models that honour it', async (model, field, filter) => {
      gateway.simulator.reset();
      const error = await client.messages
        .create({ model, max_tokens: 50, messages: [{ role: 'user', content: 'x' }], tools: [{ name: 'f', input_schema: { type: 'object' } }, { ...searchTool, ...filter }] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      expect((error as Error).message).toContain(
        `Unsupported parameter: 'tools[1].${field}' is not supported by model '${model}': its provider’s web search cannot be restricted by domain`,
      );
      expect((error as Error).message).toContain('searching every site instead would not be what was asked; remove it, or use a model that honours it (sim/anthropic-model).');
      // Refused before any provider was asked.
      expect(gateway.simulator.lastRequest(model === 'sim/openai-model' ? 'openai' : 'gemini')).toBeUndefined();
    });

    it('accepts an empty list, which restricts nothing, on any model', async () => {
      const message = await client.messages.create({ model: 'sim/openai-model', max_tokens: 50, messages: [{ role: 'user', content: 'x' }], tools: [{ ...searchTool, allowed_domains: [] }] });
      expect(message.content.length).toBeGreaterThan(0);
    });
  });
});
