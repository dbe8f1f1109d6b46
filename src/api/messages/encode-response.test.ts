import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { TextResult } from '../../core/text-result.js';
import { jsonResponse } from '../chat-completions/__fixtures__/sse-response.js';
import type { ResponseMeta } from '../shared/text-call.js';
import { encodeMessagesResponse, parseToolInput } from './encode-response.js';

const meta: ResponseMeta = { id: 'gen-42', model: 'anthropic/claude-sonnet-4', created: 1_700_000_000 };

const result: TextResult = {
  content: [
    { type: 'reasoning', text: 'Use the tool.', signature: 'sig-1' },
    { type: 'reasoning', text: '', redactedData: 'opaque' },
    { type: 'text', text: 'Checking.' },
    { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
  ],
  finishReason: 'tool_calls',
  usage: { promptTokens: 1000, completionTokens: 80, cachedPromptTokens: 700, cacheWritePromptTokens: 200, reasoningTokens: 30 },
};

describe('encodeMessagesResponse', () => {
  it('encodes blocks, stop reason and usage with input_tokens excluding the cache', () => {
    expect(encodeMessagesResponse(result, meta, 2_500_000n)).toEqual({
      id: 'gen-42',
      type: 'message',
      role: 'assistant',
      model: 'anthropic/claude-sonnet-4',
      content: [
        { type: 'thinking', thinking: 'Use the tool.', signature: 'sig-1' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      stop_details: null,
      usage: {
        input_tokens: 100,
        output_tokens: 80,
        cache_creation_input_tokens: 200,
        cache_read_input_tokens: 700,
        output_tokens_details: { thinking_tokens: 30 },
        cost: 0.0025,
      },
    });
  });

  it.each([
    ['stop', undefined, 'end_turn', null],
    ['stop', '###', 'stop_sequence', '###'],
    ['length', undefined, 'max_tokens', null],
    ['tool_calls', undefined, 'tool_use', null],
    ['content_filter', undefined, 'refusal', null],
    ['error', undefined, 'end_turn', null],
    ['other', undefined, 'end_turn', null],
  ] as const)('maps %s (stop sequence %s) to %s', (finishReason, stopSequence, stopReason, sequence) => {
    const body = encodeMessagesResponse({ content: [], finishReason, stopSequence, usage: { promptTokens: 3, completionTokens: 1 } }, meta, 0n);
    expect(body.stop_reason).toBe(stopReason);
    expect(body.stop_sequence).toBe(sequence);
    expect(body.usage).toEqual({ input_tokens: 3, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cost: 0 });
  });

  it('gives unsigned reasoning an empty signature', () => {
    const body = encodeMessagesResponse({ content: [{ type: 'reasoning', text: 'hmm' }], finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1 } }, meta, 0n);
    expect(body.content).toEqual([{ type: 'thinking', thinking: 'hmm', signature: '' }]);
  });

  it('parses tool arguments: empty text is no arguments, malformed text stays a string', () => {
    expect(parseToolInput('')).toEqual({});
    expect(parseToolInput('{"a":[1,2]}')).toEqual({ a: [1, 2] });
    expect(parseToolInput('{"a":')).toBe('{"a":');
  });

  it('is read by the official Anthropic SDK as a Message', async () => {
    const body = encodeMessagesResponse(result, meta, 2_500_000n);
    const client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: 'http://gateway.test', maxRetries: 0, fetch: async () => jsonResponse(body) });
    const message = await client.messages.create({ model: 'anthropic/claude-sonnet-4', max_tokens: 100, messages: [{ role: 'user', content: 'Weather?' }] });
    expect(message).toEqual(body);
    expect(message.usage.cache_read_input_tokens).toBe(700);
  });
});
