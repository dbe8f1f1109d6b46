import { createOpenRouter } from '@openrouter/ai-sdk-provider';
import { generateObject, generateText, stepCountIs, streamText, tool, type ModelMessage } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

// OpenRouter's provider for the Vercel AI SDK (Chat Completions with OpenRouter's additions:
// `name` on tool messages, `cache_control` on messages), pointed at the gateway, on a model of
// each provider wire protocol.
const models = [
  { wire: 'openai', model: 'sim/openai-model', upstream: 'gpt-sim' },
  { wire: 'anthropic', model: 'sim/anthropic-model', upstream: 'claude-sim' },
  { wire: 'gemini', model: 'sim/gemini-model', upstream: 'gemini-sim' },
] as const;

const citySchema = z.object({ city: z.string(), population: z.number() });

type WireMessage = { role: string; name?: string; content?: unknown };

describe("OpenRouter's AI SDK provider through the gateway", () => {
  let gateway: SimulatedGateway;
  let openrouter: ReturnType<typeof createOpenRouter>;
  /** The request bodies the provider really put on the wire, to show what it sends. */
  let sent: Array<{ messages: WireMessage[] }> = [];

  beforeAll(async () => {
    gateway = await startSimulatedGateway({
      credits: 1000,
      catalogYaml: (url) => simulatedCatalogYaml(url).replaceAll('tool_choice]', 'tool_choice, parallel_tool_calls, response_format]'),
    });
    openrouter = createOpenRouter({
      baseURL: `${gateway.url}/v1`,
      apiKey: gateway.key,
      fetch: async (input, init) => {
        if (typeof init?.body === 'string') sent.push(JSON.parse(init.body) as { messages: WireMessage[] });
        return fetch(input, init);
      },
    });
  });

  beforeEach(() => {
    sent = [];
  });

  afterAll(async () => {
    await gateway?.close();
  });

  for (const { wire, model, upstream } of models) {
    describe(`${wire}-wire model`, () => {
      it('generates text', async () => {
        const result = await generateText({ model: openrouter(model), system: 'be brief', prompt: 'alpha beta', maxOutputTokens: 100 });
        expect(result.text).toMatch(new RegExp(`^Simulated reply from ${upstream}: alpha beta`));
        expect(result.finishReason).toBe('stop');
        expect(result.usage.outputTokens).toBe(16);
      });

      it('streams text', async () => {
        const result = streamText({ model: openrouter(model), prompt: 'gamma delta', maxOutputTokens: 100 });
        const parts: string[] = [];
        for await (const part of result.textStream) parts.push(part);
        expect(parts.length).toBeGreaterThan(1);
        expect(parts.join('')).toMatch(new RegExp(`^Simulated reply from ${upstream}: gamma delta`));
        expect(await result.finishReason).toBe('stop');
        expect((await result.usage).outputTokens).toBe(16);
      });

      it('runs a tool round trip, its tool message carrying the tool name', async () => {
        const executed: string[] = [];
        const getWeather = tool({
          description: 'Current weather of a city',
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => {
            executed.push(city);
            return `sunny in ${city}`;
          },
        });
        const result = await generateText({
          model: openrouter(model),
          prompt: 'weather in Paris?',
          tools: { get_weather: getWeather },
          stopWhen: stepCountIs(3),
        });
        expect(executed).toEqual(['sample']);
        expect(result.steps).toHaveLength(2);
        expect(result.text).toContain('sunny in sample');
        // The provider names the tool on the tool message; the gateway must accept it.
        const toolMessage = sent[1].messages.find((message) => message.role === 'tool');
        expect(toolMessage).toMatchObject({ role: 'tool', name: 'get_weather' });
      });

      it('streams a tool round trip', async () => {
        const result = streamText({
          model: openrouter(model),
          prompt: 'weather in Oslo?',
          tools: { get_weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => 'rain 9C' }) },
          stopWhen: stepCountIs(3),
        });
        expect(await result.text).toContain('rain 9C');
        expect((await result.steps).map((step) => step.finishReason)).toEqual(['tool-calls', 'stop']);
        expect(sent[1].messages.find((message) => message.role === 'tool')?.name).toBe('get_weather');
      });

      it('generates a schema-shaped object', async () => {
        const result = await generateObject({ model: openrouter(model), schema: citySchema, prompt: 'a city' });
        // The simulator fills required strings with "sample" and numbers with 1.
        expect(result.object).toEqual({ city: 'sample', population: 1 });
      });

      it('accepts `name` on system, user and tool messages and message-level cache_control', async () => {
        // The provider (2.10) names tool messages itself; OpenRouter's API also takes `name` on
        // system and user messages, which callers add through the provider's fetch or older
        // versions sent: the same wire, so the gateway must take them all.
        const named = createOpenRouter({
          baseURL: `${gateway.url}/v1`,
          apiKey: gateway.key,
          fetch: async (input, init) => {
            const body = JSON.parse(String(init?.body)) as { messages: WireMessage[] };
            for (const message of body.messages) if (message.role === 'system' || message.role === 'user') message.name = `${message.role}-name`;
            sent.push(body);
            return fetch(input, { ...init, body: JSON.stringify(body) });
          },
        });
        const messages: ModelMessage[] = [
          { role: 'system', content: 'be brief', providerOptions: { openrouter: { cacheControl: { type: 'ephemeral' } } } },
          { role: 'user', content: 'weather in Rome?' },
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'get_weather', input: { city: 'Rome' } }] },
          {
            role: 'tool',
            content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'get_weather', output: { type: 'text', value: 'hail 3C' } }],
            providerOptions: { openrouter: { cacheControl: { type: 'ephemeral' } } },
          },
        ];
        const result = await generateText({ model: named(model), messages, allowSystemInMessages: true, tools: { get_weather: tool({ inputSchema: z.object({ city: z.string() }) }) } });
        expect(result.text).toContain('hail 3C');
        expect(sent[0].messages.map((message) => [message.role, message.name])).toEqual([
          ['system', 'system-name'],
          ['user', 'user-name'],
          ['assistant', undefined],
          ['tool', 'get_weather'],
        ]);
      });
    });
  }
});
