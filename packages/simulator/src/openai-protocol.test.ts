import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MESSAGE_OVERHEAD_TOKENS, TOOL_CALL_TOKENS } from './count-tokens.js';
import type { Simulator } from './simulator-types.js';
import { startSimulator } from './start-simulator.js';

let simulator: Simulator;
let client: OpenAI;

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: 'sk-sim', chunkTokens: 1 });
  client = new OpenAI({ apiKey: 'sk-sim', baseURL: simulator.baseUrls.openai, maxRetries: 0 });
});
afterAll(() => simulator.close());
beforeEach(() => simulator.reset());

const weatherTool: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city', 'unit'] },
  },
};
const timeTool: OpenAI.Chat.ChatCompletionTool = { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } };
const ask = (content: string, extra: Partial<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming> = {}) =>
  client.chat.completions.create({ model: 'gpt-sim', messages: [{ role: 'user', content }], ...extra });
const toolNames = (completion: OpenAI.Chat.ChatCompletion) =>
  completion.choices[0].message.tool_calls?.map((call) => (call.type === 'function' ? call.function.name : call.type));

describe('OpenAI chat completions over the official SDK', () => {
  it('answers with the deterministic reply and word-count usage', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-sim',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello simulated world' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-sim');
    expect(completion.choices[0].message.content).toBe(
      'Simulated reply from gpt-sim: hello simulated world hello simulated world hello simulated world hello simulated world',
    );
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({
      prompt_tokens: 5 + 2 * MESSAGE_OVERHEAD_TOKENS,
      completion_tokens: 16,
      total_tokens: 21 + 2 * MESSAGE_OVERHEAD_TOKENS,
    });
    expect(completion._request_id).toMatch(/^req_sim\d+$/);
  });

  it('streams one token per chunk and reports usage only when include_usage is set', async () => {
    const withUsage = await client.chat.completions.create({
      model: 'gpt-sim',
      messages: [{ role: 'user', content: 'one two' }],
      max_completion_tokens: 6,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of withUsage) chunks.push(chunk);
    const contents = chunks.flatMap((chunk) => (chunk.choices[0]?.delta.content ? [chunk.choices[0].delta.content] : []));
    expect(contents).toEqual(['Simulated', ' reply', ' from', ' gpt-sim:', ' one', ' two']);
    expect(chunks.at(-2)?.choices[0].finish_reason).toBe('length');
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 2 + MESSAGE_OVERHEAD_TOKENS, completion_tokens: 6 });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);

    const withoutUsage = await client.chat.completions.create({ model: 'gpt-sim', messages: [{ role: 'user', content: 'hi' }], stream: true });
    for await (const chunk of withoutUsage) expect(chunk.usage).toBeUndefined();
  });

  it('honours stop sequences', async () => {
    const completion = await ask('red green blue', { stop: ['blue'] });
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Simulated reply from gpt-sim: red green' } });
    expect(completion.usage?.completion_tokens).toBe(6);
  });

  it('calls the first tool with schema-derived arguments, then answers the tool result', async () => {
    const first = await ask('weather in Paris?', { tools: [weatherTool, timeTool] });
    const call = first.choices[0].message.tool_calls?.[0];
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(first.choices[0].message.content).toBeNull();
    expect(first.choices[0].message.tool_calls).toHaveLength(1);
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather', arguments: '{"city":"sample","unit":"c"}' } });
    expect(first.usage?.completion_tokens).toBe(TOOL_CALL_TOKENS);

    const second = await client.chat.completions.create({
      model: 'gpt-sim',
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'weather in Paris?' },
        first.choices[0].message,
        { role: 'tool', tool_call_id: call!.id, content: 'sunny and 21C' },
      ],
    });
    expect(second.choices[0].finish_reason).toBe('stop');
    expect(second.choices[0].message.content).toContain('sunny and 21C');
  });

  it('makes parallel calls on request, and a named tool_choice wins', async () => {
    const tools = [weatherTool, timeTool];
    expect(toolNames(await ask('both in parallel', { tools }))).toEqual(['get_weather', 'get_time']);
    expect(toolNames(await ask('both in parallel', { tools, parallel_tool_calls: false }))).toEqual(['get_weather']);
    const named = await ask('what time?', { tools, tool_choice: { type: 'function', function: { name: 'get_time' } } });
    expect(toolNames(named)).toEqual(['get_time']);
  });

  it('streams tool call arguments across several deltas', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-sim',
      messages: [{ role: 'user', content: 'weather?' }],
      tools: [weatherTool],
      stream: true,
    });
    const argumentDeltas: string[] = [];
    let id: string | undefined;
    let finishReason: string | null = null;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      for (const call of delta?.tool_calls ?? []) {
        id ??= call.id;
        if (call.function?.arguments) argumentDeltas.push(call.function.arguments);
      }
      finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
    }
    expect(id).toMatch(/^call_/);
    expect(argumentDeltas.length).toBeGreaterThan(2);
    expect(JSON.parse(argumentDeltas.join(''))).toEqual({ city: 'sample', unit: 'c' });
    expect(finishReason).toBe('tool_calls');
  });

  it('rejects a wrong key with the OpenAI 401 shape', async () => {
    const intruder = new OpenAI({ apiKey: 'sk-wrong', baseURL: simulator.baseUrls.openai, maxRetries: 0 });
    const error = await intruder.chat.completions
      .create({ model: 'gpt-sim', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    const body = (error as InstanceType<typeof OpenAI.AuthenticationError>).error;
    expect(body).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key' });
  });

  it('rejects a request without messages with a 400 naming the field', async () => {
    const error = await ask('', { messages: [] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('messages is required');
  });
});
