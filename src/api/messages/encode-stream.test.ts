import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { StreamError, StreamPart } from '../../core/stream-part.js';
import { collect, sseResponse, streamOf } from '../chat-completions/__fixtures__/sse-response.js';
import type { ResponseMeta } from '../shared/text-call.js';
import { encodeMessagesStream } from './encode-stream.js';

const meta: ResponseMeta = { id: 'gen-77', model: 'openai/gpt-4o', created: 1_700_000_000 };

const parts: StreamPart[] = [
  { type: 'start', providerResponseId: 'chatcmpl-1' },
  { type: 'reasoning-delta', text: 'The user ' },
  { type: 'reasoning-delta', text: 'wants weather.' },
  { type: 'reasoning-signature', signature: 'sig-1' },
  { type: 'text-delta', text: 'Let me ' },
  { type: 'text-delta', text: 'check.' },
  { type: 'tool-call-start', index: 0, id: 'toolu_a', name: 'get_weather' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '"Oslo"}' },
  { type: 'tool-call-start', index: 1, id: 'toolu_b', name: 'get_time' },
  { type: 'finish', finishReason: 'tool_calls', usage: { promptTokens: 900, completionTokens: 40, cachedPromptTokens: 800 }, cost: 3_000_000n },
];

/** Splits each SSE frame into its event name and parsed data. */
function events(frames: string[]): { event: string; data: unknown }[] {
  return frames.map((frame) => {
    const match = /^event: ([a-z_]+)\ndata: (.*)\n\n$/s.exec(frame);
    expect(match, frame).not.toBeNull();
    return { event: match![1], data: JSON.parse(match![2]) };
  });
}

function clientFor(streamParts: StreamPart[]): Anthropic {
  return new Anthropic({
    apiKey: 'sk-ant-test',
    baseURL: 'http://gateway.test',
    maxRetries: 0,
    fetch: async () => sseResponse(encodeMessagesStream(streamOf(streamParts), meta)),
  });
}

const delta = (index: number, payload: object) => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: payload } });
const stop = (index: number) => ({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
const start = (index: number, block: object) => ({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: block } });

describe('encodeMessagesStream: events', () => {
  it('emits message_start, ping, one block group per block, message_delta and message_stop', async () => {
    expect(events(await collect(encodeMessagesStream(streamOf(parts), meta)))).toEqual([
      {
        event: 'message_start',
        data: {
          type: 'message_start',
          message: {
            id: 'gen-77', type: 'message', role: 'assistant', model: 'openai/gpt-4o', content: [],
            stop_reason: null, stop_sequence: null, stop_details: null,
            usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
          },
        },
      },
      { event: 'ping', data: { type: 'ping' } },
      start(0, { type: 'thinking', thinking: '', signature: '' }),
      delta(0, { type: 'thinking_delta', thinking: 'The user ' }),
      delta(0, { type: 'thinking_delta', thinking: 'wants weather.' }),
      delta(0, { type: 'signature_delta', signature: 'sig-1' }),
      stop(0),
      start(1, { type: 'text', text: '' }),
      delta(1, { type: 'text_delta', text: 'Let me ' }),
      delta(1, { type: 'text_delta', text: 'check.' }),
      stop(1),
      start(2, { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: {} }),
      delta(2, { type: 'input_json_delta', partial_json: '{"city":' }),
      delta(2, { type: 'input_json_delta', partial_json: '"Oslo"}' }),
      stop(2),
      start(3, { type: 'tool_use', id: 'toolu_b', name: 'get_time', input: {} }),
      stop(3),
      {
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: 'tool_use', stop_sequence: null, stop_details: null },
          usage: { input_tokens: 100, output_tokens: 40, cache_creation_input_tokens: 0, cache_read_input_tokens: 800, cost: 0.003 },
        },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
  });

  it('opens a new thinking block for thinking after a signature, and reports the stop sequence', async () => {
    const received = events(await collect(encodeMessagesStream(streamOf([
      { type: 'reasoning-signature', signature: 's1' },
      { type: 'reasoning-delta', text: 'again' },
      { type: 'text-delta', text: '' },
      { type: 'finish', finishReason: 'stop', stopSequence: 'END', usage: { promptTokens: 1, completionTokens: 1 } },
    ]), meta)));
    expect(received.slice(2)).toEqual([
      start(0, { type: 'thinking', thinking: '', signature: '' }),
      delta(0, { type: 'signature_delta', signature: 's1' }),
      stop(0),
      start(1, { type: 'thinking', thinking: '', signature: '' }),
      delta(1, { type: 'thinking_delta', thinking: 'again' }),
      stop(1),
      {
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: 'stop_sequence', stop_sequence: 'END', stop_details: null },
          usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
  });

  it.each([
    [502, 'upstream_error', 'api_error'],
    [503, 'service_unavailable', 'overloaded_error'],
    [529, 'upstream_error', 'overloaded_error'],
    [504, 'upstream_timeout', 'timeout_error'],
    [429, 'rate_limited', 'rate_limit_error'],
  ])('ends a failure (status %i) with an error event of type %s', async (status, code, type) => {
    const received = events(await collect(encodeMessagesStream(streamOf([
      { type: 'text-delta', text: 'Hel' },
      { type: 'error', error: { code: code as StreamError['code'], message: 'Provider failed', status } },
    ]), meta)));
    expect(received.map((entry) => entry.event)).toEqual(['message_start', 'ping', 'content_block_start', 'content_block_delta', 'error']);
    expect(received.at(-1)?.data).toEqual({
      type: 'error',
      error: { type, message: 'Provider failed', code, status, metadata: { request_id: 'gen-77' } },
      request_id: 'gen-77',
    });
  });

  it('reports a stream that ends without finish or error as an api_error', async () => {
    const received = events(await collect(encodeMessagesStream(streamOf([]), meta)));
    expect(received).toEqual([{
      event: 'error',
      data: {
        type: 'error',
        error: { type: 'api_error', message: 'The generation stream ended unexpectedly', code: 'internal_error', status: 500, metadata: { request_id: 'gen-77' } },
        request_id: 'gen-77',
      },
    }]);
  });
});

describe('encodeMessagesStream: read by the official Anthropic SDK', () => {
  it('accumulates to the expected final message', async () => {
    const stream = clientFor(parts).messages.stream({ model: 'openai/gpt-4o', max_tokens: 100, messages: [{ role: 'user', content: 'Weather?' }] });
    const texts: string[] = [];
    stream.on('text', (text) => texts.push(text));
    const message = await stream.finalMessage();
    expect(texts).toEqual(['Let me ', 'check.']);
    expect(message).toEqual({
      id: 'gen-77',
      type: 'message',
      role: 'assistant',
      model: 'openai/gpt-4o',
      content: [
        { type: 'thinking', thinking: 'The user wants weather.', signature: 'sig-1' },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Oslo' } },
        { type: 'tool_use', id: 'toolu_b', name: 'get_time', input: {} },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      stop_details: null,
      // The SDK copies named counters from message_delta (not `cost`) and adds its own `parsed_output`.
      usage: { input_tokens: 100, output_tokens: 40, cache_creation_input_tokens: 0, cache_read_input_tokens: 800 },
      parsed_output: null,
    });
  });

  it('raises the error event as an APIError with Anthropic error type', async () => {
    const stream = clientFor([
      { type: 'text-delta', text: 'Hel' },
      { type: 'error', error: { code: 'upstream_error', message: 'Overloaded upstream', status: 529 } },
    ]).messages.stream({ model: 'x/y', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] });
    const failure = await stream.finalMessage().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(APIError);
    expect(failure).toMatchObject({ type: 'overloaded_error', apiMessage: 'Overloaded upstream' });
  });
});
