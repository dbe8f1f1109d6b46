import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * Structured output with the official SDK's parse helpers and zod schemas, on a model of each
 * provider protocol: Chat `response_format` and Responses `text.format` reach Anthropic as
 * `output_config.format`, Gemini as `responseJsonSchema`, OpenAI as `response_format`; the
 * simulator answers a JSON value of the schema it was given. JSON mode without a schema is
 * emulated on Anthropic.
 */
const Person = z.object({ name: z.string(), age: z.number(), tags: z.array(z.string()) });

function catalogWithStructuredOutput(simulatorUrl: string): string {
  return simulatedCatalogYaml(simulatorUrl).replaceAll('tool_choice]', 'tool_choice, response_format]');
}

describe('structured output through the gateway', () => {
  let gateway: SimulatedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    gateway = await startSimulatedGateway({ catalogYaml: catalogWithStructuredOutput });
    client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => gateway.close());

  for (const model of ['sim/anthropic-model', 'sim/gemini-model', 'sim/openai-model']) {
    it(`chat.completions.parse returns a parsed object on ${model}`, async () => {
      const completion = await client.chat.completions.parse({
        model,
        messages: [{ role: 'user', content: 'Describe a person' }],
        response_format: zodResponseFormat(Person, 'person'),
      });
      const parsed = completion.choices[0].message.parsed;
      expect(parsed).not.toBeNull();
      expect(Person.parse(parsed)).toEqual(parsed);
    });

    it(`responses.parse returns a parsed object on ${model}`, async () => {
      const response = await client.responses.parse({
        model,
        input: 'Describe a person',
        text: { format: zodTextFormat(Person, 'person') },
      });
      expect(response.output_parsed).not.toBeNull();
      expect(Person.parse(response.output_parsed)).toEqual(response.output_parsed);
    });
  }

  it('emulates schema-less JSON mode on an Anthropic model (a forced tool), on Responses and Chat, streamed or not', async () => {
    const isObject = (text: string) => {
      const value: unknown = JSON.parse(text);
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    };
    const response = await client.responses.create({ model: 'sim/anthropic-model', input: 'x', text: { format: { type: 'json_object' } } });
    expect(response.status).toBe('completed');
    expect(response.output.map((item) => item.type)).toEqual(['message']);
    expect(isObject(response.output_text)).toBe(true);
    expect(gateway.simulator.lastRequest('anthropic')?.body).toMatchObject({ tool_choice: { type: 'tool', name: 'json_response' } });

    const streamed = await client.responses.stream({ model: 'sim/anthropic-model', input: 'x', text: { format: { type: 'json_object' } } }).finalResponse();
    expect(isObject(streamed.output_text)).toBe(true);

    const completion = await client.chat.completions
      .stream({ model: 'sim/anthropic-model', messages: [{ role: 'user', content: 'x' }], response_format: { type: 'json_object' } })
      .finalChatCompletion();
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(isObject(completion.choices[0]!.message.content!)).toBe(true);
  });
});
