import { describe, expect, it } from 'vitest';
import { readJsonFixture } from './__fixtures__/read-fixture.js';
import { convertAnthropicResponse } from './convert-response.js';
import type { AnthropicMessage } from '../../wire/anthropic/wire-types.js';

const fixture = (name: string) => convertAnthropicResponse(readJsonFixture<AnthropicMessage>(name));

describe('convertAnthropicResponse', () => {
  it('converts a text answer with its id, model, finish reason and usage', () => {
    expect(fixture('text-response.json')).toEqual({
      providerResponseId: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      providerModel: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'text', text: 'Hello! The capital of France is Paris.' }],
      finishReason: 'stop',
      usage: { promptTokens: 21, completionTokens: 13 },
    });
  });

  it('turns tool_use blocks into tool calls whose arguments are the JSON of the input', () => {
    const result = fixture('tool-use-response.json');
    expect(result.finishReason).toBe('tool_calls');
    expect(result.content).toEqual([
      { type: 'text', text: "I'll check the current weather in San Francisco for you." },
      { type: 'tool-call', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', arguments: '{"location":"San Francisco, CA","unit":"celsius"}' },
    ]);
  });

  it('keeps the thinking signature and redacted thinking data so they can be sent back', () => {
    const result = fixture('thinking-response.json');
    expect(result.content).toEqual([
      {
        type: 'reasoning',
        text: 'The user asks for 27 * 453. 27 * 453 = 27 * 400 + 27 * 53 = 10800 + 1431 = 12231.',
        signature: expect.stringMatching(/^EqQBCgIYAh/),
      },
      { type: 'reasoning', text: '', redactedData: expect.stringMatching(/^EmwKAhgB/) },
      { type: 'text', text: '27 × 453 = 12,231.' },
    ]);
    expect(result.usage).toEqual({ promptTokens: 46, completionTokens: 187, reasoningTokens: 142 });
  });

  it('counts cache reads and writes into the prompt and reports the matched stop sequence', () => {
    const result = fixture('cache-usage-response.json');
    expect(result.usage).toEqual({ promptTokens: 2060, completionTokens: 25, cachedPromptTokens: 1800, cacheWritePromptTokens: 248 });
    expect(result.finishReason).toBe('stop');
    expect(result.stopSequence).toBe('\n\nEND');
  });

  it('skips block types it does not know and tolerates missing fields', () => {
    const result = convertAnthropicResponse({
      content: [
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
        { type: 'tool_use', id: 'toolu_9', name: 'ping' },
        { type: 'text', text: 'done' },
      ],
      stop_reason: 'max_tokens',
    });
    expect(result).toEqual({
      content: [
        { type: 'tool-call', id: 'toolu_9', name: 'ping', arguments: '{}' },
        { type: 'text', text: 'done' },
      ],
      finishReason: 'length',
      usage: { promptTokens: 0, completionTokens: 0, estimated: true },
    });
  });
});
