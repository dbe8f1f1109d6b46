import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../core/stream-part.js';
import { convertAnthropicResponse } from '../anthropic/convert-response.js';
import { convertAnthropicStream } from '../anthropic/convert-stream.js';
import type { AnthropicMessage } from '../../wire/anthropic/wire-types.js';
import { convertResponse as convertGeminiResponse } from '../gemini/convert-response.js';
import { convertStream as convertGeminiStream } from '../gemini/convert-stream.js';
import type { GeminiResponse } from '../gemini/gemini-wire-types.js';
import { convertChatCompletionResponse } from '../openai/convert-response.js';
import type { SseEvent } from './parse-sse.js';

/**
 * Style rule 4, alike in the three protocols: an upstream answer is read for the fields used, and
 * a container of the wrong type (an object or null where an array belongs, a null entry in it)
 * reads as empty instead of failing the whole answer.
 */
async function collect(parts: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const all: StreamPart[] = [];
  for await (const part of parts) all.push(part);
  return all;
}

async function* events(...list: SseEvent[]): AsyncGenerator<SseEvent> {
  yield* list;
}

const textOf = (content: Array<{ type: string; text?: string }>) => content.filter((part) => part.type === 'text').map((part) => part.text).join('');

describe('lenient upstream JSON', () => {
  it('anthropic: a null block and mistyped citations are skipped; an object for content reads as none', () => {
    const answer = convertAnthropicResponse({ content: [null, { type: 'text', text: 'hi', citations: 'none' }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 1 } } as unknown as AnthropicMessage);
    expect(textOf(answer.content)).toBe('hi');
    expect(answer.usage).toMatchObject({ promptTokens: 3, completionTokens: 1 });
    expect(convertAnthropicResponse({ content: { type: 'text', text: 'x' }, stop_reason: 'end_turn' } as unknown as AnthropicMessage).content).toEqual([]);
  });

  it('anthropic stream: a message_start whose content is not a list still streams what follows', async () => {
    const parts = await collect(
      convertAnthropicStream(
        events(
          { event: 'message_start', data: JSON.stringify({ type: 'message_start', message: { id: 'm', content: 'oops', usage: { input_tokens: 2 } } }) },
          { event: 'content_block_start', data: JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: null } }) },
          { event: 'content_block_delta', data: JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } }) },
          { event: 'content_block_stop', data: JSON.stringify({ type: 'content_block_stop', index: 0 }) },
          { event: 'message_delta', data: JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } }) },
          { event: 'message_stop', data: JSON.stringify({ type: 'message_stop' }) },
        ),
        { providerId: 'p' },
      ),
    );
    expect(parts.filter((part) => part.type === 'text-delta')).toEqual([{ type: 'text-delta', text: 'ok' }]);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('gemini: a null part is skipped; candidates that are not a list read as none', async () => {
    const answer = convertGeminiResponse({ candidates: [{ content: { parts: [null, { text: 'hi' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 1 } } as unknown as GeminiResponse);
    expect(textOf(answer.content)).toBe('hi');
    expect(convertGeminiResponse({ candidates: { content: {} } } as unknown as GeminiResponse).content).toEqual([]);
    const parts = await collect(
      convertGeminiStream(
        events(
          { data: JSON.stringify({ candidates: [{ content: { parts: 'x' } }] }) },
          { data: JSON.stringify({ candidates: [{ content: { parts: [null, { text: 'ok' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 1 } }) },
        ),
        { providerId: 'p' },
      ),
    );
    expect(parts.filter((part) => part.type === 'text-delta')).toEqual([{ type: 'text-delta', text: 'ok' }]);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('openai: null tool calls and a null annotations list read as none', () => {
    const answer = convertChatCompletionResponse(
      JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'hi', tool_calls: null, annotations: null }, finish_reason: 'stop' }], usage: { prompt_tokens: 2, completion_tokens: 1 } }),
      'p',
    );
    expect(textOf(answer.content)).toBe('hi');
  });
});
