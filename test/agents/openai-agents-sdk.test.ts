import { Agent, OpenAIChatCompletionsModel, OpenAIProvider, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readAccountMoney, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { wireModels } from './agent-cli.js';

/**
 * The OpenAI Agents SDK (`@openai/agents`) with its default settings, its provider pointed at the
 * gateway by base URL and key: the Responses model class and the Chat Completions one, each on a
 * model of every provider wire protocol, answering once and running a real function tool.
 */
describe('the OpenAI Agents SDK through the gateway', () => {
  let gateway: SimulatedGateway;
  const calls: string[] = [];

  // A real function tool: the SDK validates the model's arguments against the schema and runs it.
  const lookUpWeather = tool({
    name: 'look_up_weather',
    description: 'Looks up the weather in a city.',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      calls.push(city);
      return `weather-in-${city.toLowerCase()}-is-${6 * 7}`;
    },
  });

  beforeAll(async () => {
    // Traces go to OpenAI's platform, not through the gateway: off, so that the suite stays offline.
    setTracingDisabled(true);
    gateway = await startSimulatedGateway({ credits: 100 });
  });
  afterAll(async () => gateway?.close());

  const classes = [
    { name: 'Responses', useResponses: true, modelClass: OpenAIResponsesModel },
    { name: 'Chat Completions', useResponses: false, modelClass: OpenAIChatCompletionsModel },
  ] as const;

  for (const { name, useResponses, modelClass } of classes) {
    for (const { wire, model, upstream } of wireModels) {
      const provider = () => new OpenAIProvider({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, useResponses });

      it(`answers a one-shot prompt with the ${name} model on a ${wire}-wire model`, async () => {
        const agentModel = await provider().getModel(model);
        expect(agentModel).toBeInstanceOf(modelClass);
        const agent = new Agent({ name: 'Greeter', instructions: 'Answer briefly.', model: agentModel });
        const result = await run(agent, 'Say hello [[sim-text:Hello from the gateway]]');
        expect(result.finalOutput).toBe(`Simulated reply from ${upstream}: Hello from the gateway`);
      });

      it(`runs the function tool the model calls and answers with its output, with the ${name} model on a ${wire}-wire model`, async () => {
        const agent = new Agent({ name: 'Forecaster', instructions: 'Use the tool.', model: await provider().getModel(model), tools: [lookUpWeather] });
        const before = calls.length;
        const result = await run(agent, 'Weather in Paris? [[sim-call:look_up_weather {"city":"Paris"}]]');
        expect(calls.slice(before)).toEqual(['Paris']);
        // "42" can only come from the tool's real output, which went back to the model through the gateway.
        expect(result.finalOutput).toMatch(/^Tool result: /);
        expect(result.finalOutput).toContain('weather-in-paris-is-42');
      });
    }
  }

  it('settled every request of the runs above: charged, nothing left reserved', async () => {
    const money = await readAccountMoney(gateway);
    expect(money.reserved).toBe(0n);
    expect(money.usage).toBeGreaterThan(0n);
  });
});
