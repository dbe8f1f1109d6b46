import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postJson, readSseEvents } from './__fixtures__/read-sse-events.js';
import { MESSAGE_OVERHEAD_TOKENS, TOOL_CALL_TOKENS } from './count-tokens.js';
import type { Simulator } from './simulator-types.js';
import { startSimulator } from './start-simulator.js';

let simulator: Simulator;
let client: Anthropic;

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: 'sk-ant-sim', replyTokens: 8 });
  client = new Anthropic({ apiKey: 'sk-ant-sim', baseURL: simulator.baseUrls.anthropic, maxRetries: 0 });
});
afterAll(() => simulator.close());
beforeEach(() => simulator.reset());

const weatherTool: Anthropic.Tool = {
  name: 'get_weather',
  input_schema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city', 'days'] },
};
const timeTool: Anthropic.Tool = { name: 'get_time', input_schema: { type: 'object', properties: {} } };
const ask = (content: string, extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {}) =>
  client.messages.create({ model: 'claude-sim', max_tokens: 100, messages: [{ role: 'user', content }], ...extra });

describe('Anthropic messages over the official SDK', () => {
  it('answers with the deterministic reply, counting the system prompt as a message', async () => {
    const message = await client.messages.create({
      model: 'claude-sim',
      max_tokens: 100,
      system: 'be brief',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello there' }] }],
    });
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-sim',
      stop_reason: 'end_turn',
      stop_sequence: null,
      content: [{ type: 'text', text: 'Simulated reply from claude-sim: hello there hello there' }],
    });
    expect(message.usage).toMatchObject({ input_tokens: 4 + 2 * MESSAGE_OVERHEAD_TOKENS, output_tokens: 8, cache_read_input_tokens: 0 });
    expect(message._request_id).toMatch(/^req_sim\d+$/);
  });

  it('reports max_tokens and stop_sequence stops', async () => {
    const limited = await client.messages.create({ model: 'claude-sim', max_tokens: 3, messages: [{ role: 'user', content: 'hi' }] });
    expect(limited).toMatchObject({ stop_reason: 'max_tokens', content: [{ text: 'Simulated reply from' }], usage: { output_tokens: 3 } });
    const stopped = await ask('go STOP now', { stop_sequences: ['STOP'] });
    expect(stopped).toMatchObject({
      stop_reason: 'stop_sequence',
      stop_sequence: 'STOP',
      content: [{ text: 'Simulated reply from claude-sim: go' }],
    });
  });

  it('streams the documented event sequence and the SDK accumulates the final message', async () => {
    const stream = client.messages.stream({ model: 'claude-sim', max_tokens: 100, messages: [{ role: 'user', content: 'stream me' }] });
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const final = await stream.finalMessage();
    expect(types.slice(0, 2)).toEqual(['message_start', 'content_block_start']);
    expect(types.filter((type) => type === 'content_block_delta')).toHaveLength(8);
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(final.content).toMatchObject([{ type: 'text', text: 'Simulated reply from claude-sim: stream me stream me' }]);
    expect(final.usage).toMatchObject({ input_tokens: 2 + MESSAGE_OVERHEAD_TOKENS, output_tokens: 8 });
    expect(final.stop_reason).toBe('end_turn');
  });

  it('sends named SSE events with a ping after the first block start, as the API does', async () => {
    const response = await postJson(
      `${simulator.baseUrls.anthropic}/v1/messages`,
      { model: 'claude-sim', max_tokens: 2, stream: true, messages: [{ role: 'user', content: 'hi' }] },
      { 'x-api-key': 'sk-ant-sim' },
    );
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = await readSseEvents(response);
    expect(events.map((event) => event.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events.every((event) => JSON.parse(event.data).type === event.event)).toBe(true);
    // message_start carries a provisional output count; the total comes with message_delta.
    expect(JSON.parse(events[0].data).message.usage.output_tokens).toBe(1);
    expect(JSON.parse(events[6].data)).toMatchObject({ delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 2 } });
  });

  it('calls a tool, streams its input as several input_json_delta events, then answers the result', async () => {
    const stream = client.messages.stream({
      model: 'claude-sim',
      max_tokens: 100,
      tools: [weatherTool, timeTool],
      messages: [{ role: 'user', content: 'weather?' }],
    });
    const partials: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') partials.push(event.delta.partial_json);
    });
    const first = await stream.finalMessage();
    expect(partials.length).toBeGreaterThan(2);
    expect(first.stop_reason).toBe('tool_use');
    expect(first.usage.output_tokens).toBe(TOOL_CALL_TOKENS);
    const toolUse = first.content[0];
    expect(toolUse).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'sample', days: 1 } });
    if (toolUse.type !== 'tool_use') throw new Error('expected a tool_use block');

    const second = await client.messages.create({
      model: 'claude-sim',
      max_tokens: 100,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'rainy' }] },
      ],
    });
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content[0]).toMatchObject({ type: 'text', text: 'Simulated reply from claude-sim: rainy rainy rainy rainy' });
  });

  it('honours tool_choice and disable_parallel_tool_use', async () => {
    const parallel = await ask('parallel please', { tools: [weatherTool, timeTool] });
    expect(parallel.content.map((block) => block.type === 'tool_use' && block.name)).toEqual(['get_weather', 'get_time']);
    const single = await ask('parallel please', {
      tools: [weatherTool, timeTool],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    });
    expect(single.content).toHaveLength(1);
    const named = await ask('hi', { tools: [weatherTool, timeTool], tool_choice: { type: 'tool', name: 'get_time' } });
    expect(named.content).toMatchObject([{ type: 'tool_use', name: 'get_time', input: {} }]);
    const none = await ask('hi', { tools: [weatherTool], tool_choice: { type: 'none' } });
    expect(none.stop_reason).toBe('end_turn');
  });

  it('rejects a wrong key and a missing max_tokens with Anthropic error shapes', async () => {
    const intruder = new Anthropic({ apiKey: 'wrong', baseURL: simulator.baseUrls.anthropic, maxRetries: 0 });
    const auth = await intruder.messages
      .create({ model: 'claude-sim', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(auth).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((auth as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });

    const response = await fetch(`${simulator.baseUrls.anthropic}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-sim', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-sim', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } });
  });
});
