import { errors as undiciErrors } from 'undici';
import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../core/stream-part.js';
import { parseSse } from '../shared/parse-sse.js';
import { loadFixture, replayBody } from './__fixtures__/load-fixture.js';
import { convertChatCompletionStream } from './convert-stream.js';

async function convert(text: string, providerId = 'acme'): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of convertChatCompletionStream(parseSse(replayBody(text)), { providerId })) parts.push(part);
  expectOneTerminalPartLast(parts);
  return parts;
}

function expectOneTerminalPartLast(parts: StreamPart[]): void {
  const terminal = parts.filter((part) => part.type === 'finish' || part.type === 'error');
  expect(terminal).toHaveLength(1);
  expect(parts.at(-1)).toBe(terminal[0]);
}

/** SSE text of JSON data events (test input only). */
function sse(...events: Array<Record<string, unknown> | string>): string {
  return events.map((event) => `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`).join('');
}

function chunk(delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}) {
  return { id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra };
}

function joinedArguments(parts: StreamPart[], index: number): string {
  return parts.map((part) => (part.type === 'tool-call-delta' && part.index === index ? part.argumentsDelta : '')).join('');
}

describe('convertChatCompletionStream', () => {
  it('converts a text stream, with usage from the last chunk', async () => {
    const parts = await convert(loadFixture('text.txt'), 'openai');
    expect(parts).toEqual([
      { type: 'start', providerResponseId: 'chatcmpl-BPr3HqT8u1nVbJcXo5Wm2sKdLeP4a', providerModel: 'gpt-4o-mini-2024-07-18' },
      ...['The', ' capital', ' of', ' France', ' is', ' Paris', '.'].map((text) => ({ type: 'text-delta', text })),
      { type: 'finish', finishReason: 'stop', usage: { promptTokens: 14, completionTokens: 8, cachedPromptTokens: 0, reasoningTokens: 0 } },
    ]);
  });

  it('gives the same parts whatever the chunking of the body', async () => {
    const text = loadFixture('tool-calls.txt');
    const whole: StreamPart[] = [];
    for await (const part of convertChatCompletionStream(parseSse(replayBody(text, text.length)), { providerId: 'openai' })) whole.push(part);
    expect(await convert(text)).toEqual(whole);
  });

  it('streams two parallel tool calls with split arguments', async () => {
    const parts = await convert(loadFixture('tool-calls.txt'), 'openai');
    const starts = parts.filter((part) => part.type === 'tool-call-start');
    expect(starts).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_Wq8fKx2VbN4mRt1ZcY7hLp0s', name: 'get_weather' },
      { type: 'tool-call-start', index: 1, id: 'call_Hj3nPq6TsV9xBd2GkL5mWr8e', name: 'get_local_time' },
    ]);
    expect(JSON.parse(joinedArguments(parts, 0))).toEqual({ city: 'Paris', unit: 'celsius' });
    expect(JSON.parse(joinedArguments(parts, 1))).toEqual({ timezone: 'Europe/Paris' });
    expect(parts.filter((part) => part.type === 'tool-call-delta')).toHaveLength(7);
    // Every delta follows the start of its call.
    for (const [position, part] of parts.entries()) {
      if (part.type !== 'tool-call-delta') continue;
      expect(parts.slice(0, position).some((earlier) => earlier.type === 'tool-call-start' && earlier.index === part.index)).toBe(true);
    }
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: 'tool_calls', usage: expect.objectContaining({ promptTokens: 92, completionTokens: 51 }) });
  });

  it('streams DeepSeek reasoning, then text, with usage beside the finish reason and keep-alive comments ignored', async () => {
    const parts = await convert(loadFixture('reasoning-deepseek.txt'), 'deepseek');
    const reasoning = parts.filter((part) => part.type === 'reasoning-delta').map((part) => part.text).join('');
    const text = parts.filter((part) => part.type === 'text-delta').map((part) => part.text).join('');
    expect(reasoning).toBe('Okay, the user asks for 9.11 vs 9.9. 9.9 is 9.90, which is larger.');
    expect(text).toBe('9.9 is larger.');
    expect(parts.findLastIndex((part) => part.type === 'reasoning-delta')).toBeLessThan(parts.findIndex((part) => part.type === 'text-delta'));
    expect(parts[0]).toEqual({ type: 'start', providerResponseId: '3f1c9a52-7d4e-4b8a-9c61-2e5f0d8b7a34', providerModel: 'deepseek-reasoner' });
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { promptTokens: 18, completionTokens: 96, cachedPromptTokens: 0, reasoningTokens: 81 },
    });
  });

  it('carries cached and reasoning tokens from the usage chunk into the finish part', async () => {
    const parts = await convert(loadFixture('cached-usage.txt'), 'openai');
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { promptTokens: 2006, completionTokens: 300, cachedPromptTokens: 1920, reasoningTokens: 256 },
    });
  });

  it('reads reasoning from delta.reasoning (OpenRouter)', async () => {
    const parts = await convert(sse(chunk({ role: 'assistant', reasoning: 'Thinking', reasoning_details: [] }), chunk({ content: 'Done' }, 'stop'), '[DONE]'));
    expect(parts.slice(1, 3)).toEqual([
      { type: 'reasoning-delta', text: 'Thinking' },
      { type: 'text-delta', text: 'Done' },
    ]);
  });

  it('renumbers tool calls in the order they start, whatever indexes the server uses', async () => {
    const parts = await convert(
      sse(
        chunk({ tool_calls: [{ index: 3, id: 'call_a', type: 'function', function: { name: 'a', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 7, id: 'call_b', type: 'function', function: { name: 'b', arguments: '{"x"' } }] }),
        chunk({ tool_calls: [{ index: 3, function: { arguments: '{"y":1}' } }] }),
        chunk({ tool_calls: [{ index: 7, function: { arguments: ':2}' } }] }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ),
    );
    expect(parts.slice(1, -1)).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'a' },
      { type: 'tool-call-start', index: 1, id: 'call_b', name: 'b' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"x"' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"y":1}' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: ':2}' },
    ]);
  });

  it('keys tool calls by id when the server sends no index, and holds arguments that arrive before the name', async () => {
    const parts = await convert(
      sse(
        chunk({ tool_calls: [{ id: 'call_a', function: { arguments: '{"q":' } }] }),
        chunk({ tool_calls: [{ id: 'call_a', function: { name: 'search', arguments: '"x"}' } }] }),
        chunk({ tool_calls: [{ id: 'call_b', function: { name: 'fetch', arguments: '{}' } }] }),
        chunk({}, 'tool_calls'),
      ),
    );
    expect(parts.slice(1, -1)).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'search' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"q":"x"}' },
      { type: 'tool-call-start', index: 1, id: 'call_b', name: 'fetch' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
    ]);
  });

  it('finishes with estimated usage when none arrived, and at the end of the body without [DONE]', async () => {
    const parts = await convert(sse(chunk({ content: 'Hi' }), chunk({}, 'length')));
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: 'length', usage: { promptTokens: 0, completionTokens: 0, estimated: true } });
  });

  it('keeps the latest usage when a server sends a running total', async () => {
    const usage = (completion: number) => ({ prompt_tokens: 10, completion_tokens: completion });
    const parts = await convert(sse(chunk({ content: 'a' }, null, { usage: usage(1) }), chunk({ content: 'b' }, 'stop', { usage: usage(2) }), chunk({}, null, { usage: null }), '[DONE]'));
    expect(parts.at(-1)).toMatchObject({ type: 'finish', usage: { promptTokens: 10, completionTokens: 2 } });
  });

  it('reads nothing after [DONE]', async () => {
    const parts = await convert(sse(chunk({ content: 'a' }, 'stop'), '[DONE]', chunk({ content: 'late' }), 'not json'));
    expect(parts.map((part) => part.type)).toEqual(['start', 'text-delta', 'finish']);
  });

  it("takes vLLM's stop_reason as the stop sequence", async () => {
    const parts = await convert(sse({ id: 'c', choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 'stop', stop_reason: '###' }] }, '[DONE]'));
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', stopSequence: '###' });
  });

  describe('errors', () => {
    it('ends with an error part for an in-band error after some text, with nothing after it', async () => {
      const parts = await convert(loadFixture('error-mid-stream.txt'), 'openrouter');
      expect(parts.map((part) => part.type)).toEqual(['start', 'text-delta', 'text-delta', 'error']);
      expect(parts.at(-1)).toEqual({
        type: 'error',
        error: { code: 'upstream_error', status: 502, message: 'openrouter reported an error: Provider returned error' },
      });
    });

    it('ends with only an error part when the first event is an error', async () => {
      const parts = await convert(loadFixture('error-first-event.txt'), 'openai');
      expect(parts).toEqual([
        {
          type: 'error',
          error: { code: 'upstream_error', status: 502, message: 'openai reported an error: The server had an error while processing your request. Sorry about that!' },
        },
      ]);
    });

    it('ends with an error part for malformed JSON', async () => {
      const parts = await convert(sse(chunk({ content: 'a' }), '{"choices": [', chunk({ content: 'never' }, 'stop')));
      expect(parts.map((part) => part.type)).toEqual(['start', 'text-delta', 'error']);
      expect(parts.at(-1)).toMatchObject({ error: { code: 'upstream_error', message: 'acme sent a stream event that is not a JSON object' } });
    });

    it('ends with an error part for a named error event', async () => {
      const parts = await convert(`${sse(chunk({ content: 'a' }))}event: error\ndata: overloaded\n\n`);
      expect(parts.at(-1)).toMatchObject({ type: 'error', error: { message: 'acme sent an error event' } });
    });

    it('ends with an error part when the body ends without a finish reason', async () => {
      const parts = await convert(sse(chunk({ role: 'assistant', content: 'The answer is' })));
      expect(parts.map((part) => part.type)).toEqual(['start', 'text-delta', 'error']);
      expect(parts.at(-1)).toMatchObject({ error: { status: 502, message: 'acme ended the stream before a finish reason' } });
    });

    it('ends with an error part for [DONE] with no chunk before it', async () => {
      expect((await convert(sse('[DONE]'))).map((part) => part.type)).toEqual(['error']);
    });

    it('ends with an error part when a tool call never gets a name', async () => {
      const parts = await convert(sse(chunk({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] }), chunk({}, 'tool_calls')));
      expect(parts.at(-1)).toMatchObject({ type: 'error', error: { message: 'acme streamed a tool call without a function name' } });
    });

    it('ends with a timeout error part when the body times out while reading', async () => {
      async function* timingOutBody(): AsyncGenerator<Uint8Array> {
        yield* replayBody(sse(chunk({ content: 'partial' })));
        throw new undiciErrors.BodyTimeoutError();
      }
      const parts: StreamPart[] = [];
      for await (const part of convertChatCompletionStream(parseSse(timingOutBody()), { providerId: 'acme' })) parts.push(part);
      expect(parts).toEqual([
        { type: 'start', providerResponseId: 'chatcmpl-1', providerModel: 'm' },
        { type: 'text-delta', text: 'partial' },
        { type: 'error', error: { code: 'upstream_timeout', status: 504, message: 'acme timed out' } },
      ]);
    });

    it('ends with an error part when the connection breaks', async () => {
      async function* brokenBody(): AsyncGenerator<Uint8Array> {
        yield* replayBody(sse(chunk({ content: 'partial' })));
        throw new undiciErrors.SocketError('other side closed');
      }
      const parts: StreamPart[] = [];
      for await (const part of convertChatCompletionStream(parseSse(brokenBody()), { providerId: 'acme' })) parts.push(part);
      expect(parts.at(-1)).toEqual({ type: 'error', error: { code: 'upstream_error', status: 502, message: 'acme unreachable: other side closed' } });
    });
  });

  it('stops reading the body when the consumer returns early', async () => {
    let closed = false;
    async function* body(): AsyncGenerator<Uint8Array> {
      try {
        yield* replayBody(sse(chunk({ content: 'a' }), chunk({ content: 'b' })));
        await new Promise(() => {}); // never ends on its own
      } finally {
        closed = true;
      }
    }
    for await (const part of convertChatCompletionStream(parseSse(body()), { providerId: 'acme' })) {
      if (part.type === 'text-delta') break;
    }
    expect(closed).toBe(true);
  });
});
