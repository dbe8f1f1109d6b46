import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * The Messages web search server tool: each provider's own search where it has one; elsewhere an
 * offer the request is served without, which the answer names (contract §4).
 */
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

  it('is served without the search on a model that has none, and the answer says so', async () => {
    gateway.simulator.reset();
    const { data: message, response } = await client.messages
      .create({ model: 'sim/backup', max_tokens: 50, messages: [{ role: 'user', content: 'x' }], tools: [searchTool] })
      .withResponse();
    expect(message.content.length).toBeGreaterThan(0);
    expect(response.headers.get('x-switchyard-omitted')).toBe('tools[type=web_search]');
    expect(gateway.simulator.lastRequest('anthropic')?.body).not.toHaveProperty('tools');
  });

  it('is still refused when tool_choice forces it', async () => {
    const error = await client.messages
      .create({ model: 'sim/anthropic-model', max_tokens: 50, messages: [{ role: 'user', content: 'x' }], tools: [searchTool], tool_choice: { type: 'tool', name: 'web_search' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as Error).message).toContain("forces the server tool 'web_search'");
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
    ])('serves it on %s, whose search cannot take %s, without the search rather than searching every site', async (model, field, filter) => {
      gateway.simulator.reset();
      const { data: message, response } = await client.messages
        .create({ model, max_tokens: 50, messages: [{ role: 'user', content: 'x' }], tools: [{ name: 'f', input_schema: { type: 'object' } }, { ...searchTool, ...filter }] })
        .withResponse();
      expect(message.content.length).toBeGreaterThan(0);
      expect(response.headers.get('x-switchyard-omitted')).toBe(`tools[type=web_search], tools[1].${field}`);
      const upstream = gateway.simulator.lastRequest(model === 'sim/openai-model' ? 'openai' : 'gemini')?.body as Record<string, unknown>;
      expect(upstream).not.toHaveProperty('web_search_options');
      expect(JSON.stringify(upstream.tools)).not.toContain('googleSearch');
    });

    it('accepts an empty list, which restricts nothing, on any model', async () => {
      const message = await client.messages.create({ model: 'sim/openai-model', max_tokens: 50, messages: [{ role: 'user', content: 'x' }], tools: [{ ...searchTool, allowed_domains: [] }] });
      expect(message.content.length).toBeGreaterThan(0);
    });
  });
});
