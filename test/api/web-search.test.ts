import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * Chat Completions' `web_search_options` and the Responses `web_search` tool: served where the
 * endpoint has a search; elsewhere (a domain filter: where the search takes none) an offer the
 * request is served without, which the answer names (contract §4).
 */
describe('hosted web search from Chat Completions', () => {
  let gateway: SimulatedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    gateway = await startSimulatedGateway({
      catalogYaml: (url) =>
        simulatedCatalogYaml(url).replace(/(model: (?:gpt-sim|claude-sim|gemini-sim)\n.*\n\s+supported_parameters: \[[^\]]*)\]/g, '$1, web_search]'),
    });
    client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => gateway.close());

  for (const model of ['sim/openai-model', 'sim/anthropic-model', 'sim/gemini-model']) {
    it(`answers with web_search_options on ${model}`, async () => {
      const completion = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'news today' }],
        web_search_options: { search_context_size: 'low' },
      });
      expect(completion.choices[0].message.content).toContain('news today');
    });
  }

  it('serves it without the search on a model that has none, naming web_search_options in x-switchyard-omitted', async () => {
    const { data: completion, response } = await client.chat.completions
      .create({ model: 'sim/backup', messages: [{ role: 'user', content: 'x' }], web_search_options: {} })
      .withResponse();
    expect(completion.choices[0].message.content).toContain('x');
    expect(response.headers.get('x-switchyard-omitted')).toBe('web_search_options');
  });

  describe('a Responses web_search tool with filters.allowed_domains', () => {
    const search = (allowed: string[]) => ({ type: 'web_search' as const, filters: { allowed_domains: allowed } });

    it('reaches an anthropic-wire model as its search tool’s allowed_domains', async () => {
      gateway.simulator.reset();
      const response = await client.responses.create({ model: 'sim/anthropic-model', input: 'news today', tools: [search(['example.com'])] });
      expect(response.status).toBe('completed');
      expect(gateway.simulator.lastRequest('anthropic')?.body).toMatchObject({ tools: [{ type: 'web_search_20250305', name: 'web_search', allowed_domains: ['example.com'] }] });
    });

    it.each(['sim/openai-model', 'sim/gemini-model'])('is served on %s, whose search has no domain filter, without the search rather than searching every site', async (model) => {
      gateway.simulator.reset();
      const { data: response, response: raw } = await client.responses.create({ model, input: 'x', tools: [search(['example.com'])] }).withResponse();
      expect(response.status).toBe('completed');
      expect(raw.headers.get('x-switchyard-omitted')).toBe('tools[type=web_search], tools[0].filters.allowed_domains');
      const upstream = gateway.simulator.lastRequest(model === 'sim/openai-model' ? 'openai' : 'gemini')?.body as Record<string, unknown>;
      expect(upstream).not.toHaveProperty('web_search_options');
      expect(JSON.stringify(upstream.tools ?? [])).not.toContain('googleSearch');
    });

    it('is accepted with an empty list, which restricts nothing, on any model', async () => {
      gateway.simulator.reset();
      const response = await client.responses.create({ model: 'sim/openai-model', input: 'news today', tools: [search([])] });
      expect(response.status).toBe('completed');
      expect(gateway.simulator.lastRequest('openai')?.body).toHaveProperty('web_search_options');
    });
  });
});
