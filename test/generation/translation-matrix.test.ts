import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * The translation matrix: every inbound style, driven by its official SDK, against a model of
 * every provider protocol, streaming and not, for text and for tool calls.
 */
const models = [
  { id: 'sim/openai-model', upstream: 'gpt-sim' },
  { id: 'sim/anthropic-model', upstream: 'claude-sim' },
  { id: 'sim/gemini-model', upstream: 'gemini-sim' },
];
const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const prompt = 'Say hello to the gateway';

let gateway: SimulatedGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  gateway = await startSimulatedGateway();
  openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
});
afterAll(async () => gateway?.close());

function expectSimulatedText(text: string | null | undefined, upstream: string) {
  expect(text).toMatch(new RegExp(`^Simulated reply from ${upstream}: `));
  expect(text!.split(/\s+/).length).toBe(16);
}

describe.each(models)('model $id', ({ id, upstream }) => {
  describe('OpenAI Chat Completions (openai SDK)', () => {
    it('answers text, with usage and cost', async () => {
      const completion = await openai.chat.completions.create({ model: id, messages: [{ role: 'user', content: prompt }] });
      expect(completion.object).toBe('chat.completion');
      expect(completion.model).toBe(id);
      expect(completion.choices[0].finish_reason).toBe('stop');
      expectSimulatedText(completion.choices[0].message.content, upstream);
      expect(completion.usage).toMatchObject({ completion_tokens: 16, total_tokens: completion.usage!.prompt_tokens + 16 });
      expect((completion.usage as unknown as { cost: number }).cost).toBeGreaterThan(0);
    });

    it('streams text with usage in the last chunk', async () => {
      const stream = await openai.chat.completions.create({ model: id, messages: [{ role: 'user', content: prompt }], stream: true });
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined | null;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      expectSimulatedText(text, upstream);
      expect(usage?.completion_tokens).toBe(16);
      expect((usage as unknown as { cost: number }).cost).toBeGreaterThan(0);
    });

    it('calls tools, streaming and not', async () => {
      const request = {
        model: id,
        messages: [{ role: 'user' as const, content: 'What is the weather?' }],
        tools: [{ type: 'function' as const, function: weatherTool }],
      };
      const completion = await openai.chat.completions.create(request);
      expect(completion.choices[0].finish_reason).toBe('tool_calls');
      const call = completion.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
      expect(call.function.name).toBe('get_weather');
      expect(JSON.parse(call.function.arguments)).toEqual({ city: 'sample' });
      const streamed = await openai.chat.completions.stream(request).finalChatCompletion();
      const streamedCall = streamed.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
      expect(streamedCall.function.name).toBe('get_weather');
      expect(JSON.parse(streamedCall.function.arguments)).toEqual({ city: 'sample' });
      expect(streamed.choices[0].finish_reason).toBe('tool_calls');

      const followUp = await openai.chat.completions.create({
        model: id,
        messages: [
          ...request.messages,
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: call.id, content: 'sunny and warm' },
        ],
        tools: request.tools,
      });
      expect(followUp.choices[0].message.content).toContain('sunny and warm');
    });
  });

  describe('OpenAI Responses (openai SDK)', () => {
    it('answers text, with usage and cost', async () => {
      const response = await openai.responses.create({ model: id, input: prompt, instructions: 'Be brief.' });
      expect(response.status).toBe('completed');
      expectSimulatedText(response.output_text, upstream);
      expect(response.usage).toMatchObject({ output_tokens: 16 });
      expect((response.usage as unknown as { cost: number }).cost).toBeGreaterThan(0);
    });

    it('streams text through the full event sequence', async () => {
      const stream = openai.responses.stream({ model: id, input: prompt });
      const types: string[] = [];
      stream.on('event', (event) => types.push(event.type));
      const final = await stream.finalResponse();
      expectSimulatedText(final.output_text, upstream);
      expect(types[0]).toBe('response.created');
      expect(types).toContain('response.output_text.delta');
      expect(types.at(-1)).toBe('response.completed');
      expect(final.usage?.output_tokens).toBe(16);
    });

    it('calls tools and takes function_call_output back, streaming and not', async () => {
      const tools = [{ type: 'function' as const, name: weatherTool.name, description: weatherTool.description, parameters: weatherTool.parameters, strict: false }];
      const response = await openai.responses.create({ model: id, input: 'What is the weather?', tools });
      const call = response.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
      expect(call.name).toBe('get_weather');
      expect(JSON.parse(call.arguments)).toEqual({ city: 'sample' });
      const streamed = await openai.responses.stream({ model: id, input: 'What is the weather?', tools }).finalResponse();
      const streamedCall = streamed.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
      expect(JSON.parse(streamedCall.arguments)).toEqual({ city: 'sample' });

      const followUp = await openai.responses.create({
        model: id,
        input: [
          { role: 'user', content: 'What is the weather?' },
          { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
          { type: 'function_call_output', call_id: call.call_id, output: 'sunny and warm' },
        ],
        tools,
      });
      expect(followUp.output_text).toContain('sunny and warm');
    });
  });

  describe('Anthropic Messages (@anthropic-ai/sdk)', () => {
    it('answers text, with usage', async () => {
      const message = await anthropic.messages.create({ model: id, max_tokens: 200, system: 'Be brief.', messages: [{ role: 'user', content: prompt }] });
      expect(message.type).toBe('message');
      expect(message.stop_reason).toBe('end_turn');
      const text = message.content.find((block) => block.type === 'text') as Anthropic.TextBlock;
      expectSimulatedText(text.text, upstream);
      expect(message.usage.output_tokens).toBe(16);
      expect((message.usage as unknown as { cost: number }).cost).toBeGreaterThan(0);
    });

    it('streams text through the full event sequence', async () => {
      const stream = anthropic.messages.stream({ model: id, max_tokens: 200, messages: [{ role: 'user', content: prompt }] });
      const types: string[] = [];
      stream.on('streamEvent', (event) => types.push(event.type));
      const message = await stream.finalMessage();
      const text = message.content.find((block) => block.type === 'text') as Anthropic.TextBlock;
      expectSimulatedText(text.text, upstream);
      expect(types[0]).toBe('message_start');
      expect(types).toContain('content_block_delta');
      expect(types.at(-1)).toBe('message_stop');
      expect(message.usage.output_tokens).toBe(16);
    });

    it('calls tools and takes tool_result back, streaming and not', async () => {
      const tools = [{ name: weatherTool.name, description: weatherTool.description, input_schema: weatherTool.parameters as Anthropic.Tool.InputSchema }];
      const message = await anthropic.messages.create({ model: id, max_tokens: 200, messages: [{ role: 'user', content: 'What is the weather?' }], tools });
      expect(message.stop_reason).toBe('tool_use');
      const use = message.content.find((block) => block.type === 'tool_use') as Anthropic.ToolUseBlock;
      expect(use.name).toBe('get_weather');
      expect(use.input).toEqual({ city: 'sample' });
      const streamed = await anthropic.messages.stream({ model: id, max_tokens: 200, messages: [{ role: 'user', content: 'What is the weather?' }], tools }).finalMessage();
      const streamedUse = streamed.content.find((block) => block.type === 'tool_use') as Anthropic.ToolUseBlock;
      expect(streamedUse.input).toEqual({ city: 'sample' });

      const followUp = await anthropic.messages.create({
        model: id,
        max_tokens: 200,
        tools,
        messages: [
          { role: 'user', content: 'What is the weather?' },
          { role: 'assistant', content: [use] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny and warm' }] },
        ],
      });
      const text = followUp.content.find((block) => block.type === 'text') as Anthropic.TextBlock;
      expect(text.text).toContain('sunny and warm');
    });
  });
});

describe('billing through the matrix', () => {
  it('charges exactly the usage.cost it reports', async () => {
    const before = (await (await fetch(`${gateway.url}/v1/credits`, { headers: { authorization: `Bearer ${gateway.key}` } })).json()) as { data: { total_usage: number } };
    const completion = await openai.chat.completions.create({ model: 'sim/gemini-model', messages: [{ role: 'user', content: prompt }] });
    const after = (await (await fetch(`${gateway.url}/v1/credits`, { headers: { authorization: `Bearer ${gateway.key}` } })).json()) as { data: { total_usage: number } };
    const cost = (completion.usage as unknown as { cost: number }).cost;
    // 1 USD/1M prompt, 2 USD/1M completion; the simulator's counts are exact.
    expect(cost).toBeCloseTo((completion.usage!.prompt_tokens * 1 + 16 * 2) / 1_000_000, 12);
    expect(after.data.total_usage - before.data.total_usage).toBeCloseTo(cost, 12);
  });

  it('refuses a model that does not exist with 503 no_available_provider, in each style\'s error shape', async () => {
    await expect(openai.chat.completions.create({ model: 'sim/nothing', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      status: 503,
      error: { code: 'no_available_provider' },
    });
    const failure = await anthropic.messages.create({ model: 'sim/nothing', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect((failure as InstanceType<typeof Anthropic.APIError>).status).toBe(503);
  });
});
