import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * The AI SDK's Anthropic provider with `disableParallelToolUse`, which it sends as
 * `tool_choice: {type: 'auto', disable_parallel_tool_use: true}`, on models of the other wire
 * protocols. The field table (src/api/messages/field-table.ts) makes it `parallel_tool_calls:
 * false` for an openai-wire provider and a hint for Gemini, which has no such switch; neither is
 * a reason to refuse the request. The default test catalog does not list `parallel_tool_calls`
 * among the endpoints' supported parameters, so a hint that routing checked would be refused here.
 *
 * The simulator makes two calls when the prompt says "parallel" and the request allows them.
 */
const tools = {
  get_weather: tool({ description: 'Current weather of a city', inputSchema: z.object({ city: z.string() }) }),
  get_time: tool({ description: 'Local time of a city', inputSchema: z.object({ city: z.string() }) }),
};
const prompt = 'weather and time in Paris, in parallel';
const disableParallel = { anthropic: { disableParallelToolUse: true } };
const maxOutputTokens = 100;

let gateway: SimulatedGateway;
let anthropic: ReturnType<typeof createAnthropic>;
beforeAll(async () => {
  gateway = await startSimulatedGateway();
  anthropic = createAnthropic({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key });
});
afterAll(() => gateway?.close());

describe('@ai-sdk/anthropic disableParallelToolUse through /v1/messages', () => {
  it('on an openai-wire model: answered with one tool call, parallel_tool_calls: false upstream', async () => {
    gateway.simulator.reset();
    const result = await generateText({ model: anthropic('sim/openai-model'), prompt, tools, maxOutputTokens, providerOptions: disableParallel });
    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls.map((call) => [call.toolName, call.input])).toEqual([['get_weather', { city: 'sample' }]]);
    const sent = gateway.simulator.lastRequest('openai')?.body as Record<string, unknown>;
    expect(sent.parallel_tool_calls).toBe(false);
    expect(sent.tool_choice).toBe('auto');

    // The same request without the option: nothing is sent, and the simulator calls both tools.
    const parallel = await generateText({ model: anthropic('sim/openai-model'), prompt, tools, maxOutputTokens });
    expect(parallel.toolCalls.map((call) => call.toolName)).toEqual(['get_weather', 'get_time']);
    expect(gateway.simulator.lastRequest('openai')?.body).not.toHaveProperty('parallel_tool_calls');
  });

  it('on a gemini-wire model: answered with a tool call; the hint reaches Gemini as nothing', async () => {
    gateway.simulator.reset();
    const result = await generateText({ model: anthropic('sim/gemini-model'), prompt, tools, maxOutputTokens, providerOptions: disableParallel });
    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls[0]).toMatchObject({ toolName: 'get_weather', input: { city: 'sample' } });
    const received = gateway.simulator.lastRequest('gemini');
    if (!received) return expect.fail('the simulator received no Gemini request');
    // Gemini has no switch for it: the choice goes as AUTO and no field about parallel calls is invented.
    expect((received.body as { toolConfig?: unknown }).toolConfig).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(Object.keys(received.body as object).sort()).toEqual(['contents', 'generationConfig', 'toolConfig', 'tools']);
    // Gemini decides itself how many calls to make (the simulator, like Gemini, makes both).
    expect(result.toolCalls.map((call) => call.toolName)).toEqual(['get_weather', 'get_time']);
  });
});
