import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * Chat Completions' `web_search_options` and the Responses `web_search` tool: served where the
 * endpoint has a search, refused with alternatives elsewhere; a domain filter only where the search takes one.
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

  it('refuses it on a model without search, naming the field, the model, why, and the models that have one', async () => {
    const error = await client.chat.completions
      .create({ model: 'sim/backup', messages: [{ role: 'user', content: 'x' }], web_search_options: {} })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toBe(
      "400 Unsupported parameter: 'web_search_options' is not supported by model 'sim/backup': its provider has no hosted web search to run the tool; remove the tool, or use a model that offers it (sim/openai-model, sim/anthropic-model, sim/gemini-model).",
    );
  });

  describe('a Responses web_search tool with filters.allowed_domains', () => {
    const search = (allowed: string[]) => ({ type: 'web_search' as const, filters: { allowed_domains: allowed } });

    it('reaches an anthropic-wire model as its search tool’s allowed_domains', async () => {
      gateway.simulator.reset();
      const response = await client.responses.create({ model: 'sim/anthropic-model', input: 'news today', tools: [search(['example.com'])] });
      expect(response.status).toBe('completed');
      expect(gateway.simulator.lastRequest('anthropic')?.body).toMatchObject({ tools: [{ type: 'web_search_20250305', name: 'web_search', allowed_domains: ['example.com'] }] });
    });

    it.each(['sim/openai-model', 'sim/gemini-model'])('is refused on %s, whose search has no domain filter, naming the field, the model, why and the models that honour it', async (model) => {
      const error = await client.responses.create({ model, input: 'x', tools: [search(['example.com'])] }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('tools[0].filters.allowed_domains');
      expect((error as Error).message).toBe(
        `400 Unsupported parameter: 'tools[0].filters.allowed_domains' is not supported by model '${model}': its provider’s web search cannot be restricted by domain (OpenAI’s Chat Completions web search and Gemini’s Google Search grounding take no domain filter), and searching every site instead would not be what was asked; remove it, or use a model that honours it (sim/anthropic-model).`,
      );
    });

    it('is accepted with an empty list, which restricts nothing, on any model', async () => {
      gateway.simulator.reset();
      const response = await client.responses.create({ model: 'sim/openai-model', input: 'news today', tools: [search([])] });
      expect(response.status).toBe('completed');
      expect(gateway.simulator.lastRequest('openai')?.body).toHaveProperty('web_search_options');
    });
  });
});
