import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { OpenRouter } from '@openrouter/sdk';
import { generateObject, streamObject } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * `@ai-sdk/openai-compatible`, the common way to use a gateway from the AI SDK, with its default
 * settings: `generateObject` sends `response_format: {type: "json_object"}` (it claims no
 * structured outputs), which Anthropic has no field for and the gateway emulates with a forced
 * tool; and OpenRouter's SDK asking for JSON mode. On a model of each wire protocol, through
 * /v1/chat/completions.
 */
const models = [
  { wire: 'openai', model: 'sim/openai-model' },
  { wire: 'anthropic', model: 'sim/anthropic-model' },
  { wire: 'gemini', model: 'sim/gemini-model' },
] as const;

let gateway: SimulatedGateway;
let provider: ReturnType<typeof createOpenAICompatible>;
let openrouter: OpenRouter;

beforeAll(async () => {
  gateway = await startSimulatedGateway({
    credits: 1000,
    catalogYaml: (url) => simulatedCatalogYaml(url).replaceAll('tool_choice]', 'tool_choice, response_format]'),
  });
  provider = createOpenAICompatible({ name: 'switchyard', baseURL: `${gateway.url}/v1`, apiKey: gateway.key });
  openrouter = new OpenRouter({ apiKey: gateway.key, serverURL: `${gateway.url}/v1`, retryConfig: { strategy: 'none' } });
});
afterAll(async () => gateway?.close());

describe.each(models)('$wire-wire model', ({ wire, model }) => {
  it('generateObject answers a JSON object', async () => {
    const { object, finishReason } = await generateObject({ model: provider.chatModel(model), output: 'no-schema', prompt: 'Describe Paris as JSON.' });
    expect(finishReason).toBe('stop');
    expect(typeof object === 'object' && object !== null && !Array.isArray(object)).toBe(true);
    if (wire !== 'anthropic') expect(object).toEqual({ reply: expect.stringMatching(/^Simulated reply from /) });
    const upstream = gateway.simulator.lastRequest(wire)?.body as Record<string, any>;
    if (wire === 'anthropic') {
      expect(upstream.tool_choice).toEqual({ type: 'tool', name: 'json_response' });
      expect(upstream.tools.map((tool: { name: string }) => tool.name)).toEqual(['json_response']);
    }
  });

  it('streamObject streams a JSON object', async () => {
    const result = streamObject({ model: provider.chatModel(model), output: 'no-schema', prompt: 'Describe Paris as JSON.' });
    let partials = 0;
    for await (const _partial of result.partialObjectStream) partials += 1;
    expect(partials).toBeGreaterThan(0);
    const object = await result.object;
    expect(typeof object === 'object' && object !== null && !Array.isArray(object)).toBe(true);
    expect(await result.finishReason).toBe('stop');
  });

  it("@openrouter/sdk chat.send with JSON mode, not streaming, passes the SDK's validation", async () => {
    const result = await openrouter.chat.send({
      chatRequest: { model, messages: [{ role: 'user', content: 'Describe Paris as JSON.' }], responseFormat: { type: 'json_object' }, stream: false },
    });
    if (!('choices' in result)) throw new Error('expected a complete chat result');
    expect(result.choices[0]?.finishReason).toBe('stop');
    const content = result.choices[0]?.message.content;
    expect(typeof content).toBe('string');
    expect(typeof JSON.parse(content as string)).toBe('object');
  });
});
