import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../core/stream-part.js';
import { encodeGeminiResponse } from './encode-response.js';
import { encodeGeminiChunks, frameJsonArray, frameSse } from './encode-stream.js';

const meta = { id: 'req_1', model: 'acme/gem', created: 0 };

async function* from<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

async function collect(parts: StreamPart[]): Promise<Array<Record<string, unknown>>> {
  const chunks: Array<Record<string, unknown>> = [];
  for await (const chunk of encodeGeminiChunks(from(parts), meta)) chunks.push(JSON.parse(chunk) as Record<string, unknown>);
  return chunks;
}

const partsOf = (chunk: Record<string, unknown>) => (chunk.candidates as Array<{ content: { parts: unknown[] } }>)[0].content.parts;

describe('encodeGeminiChunks', () => {
  it('streams thoughts and text, puts a Gemini signature on the next part, and ends with the reason and usage with cost', async () => {
    const chunks = await collect([
      { type: 'start' },
      { type: 'reasoning-delta', text: 'hmm' },
      { type: 'reasoning-signature', signature: 'gemini:SIG' },
      { type: 'text-delta', text: 'Hi' },
      { type: 'finish', finishReason: 'stop', usage: { promptTokens: 5, completionTokens: 9, reasoningTokens: 4 }, cost: 1_500n },
    ]);
    expect(chunks.map(partsOf)).toEqual([[{ text: 'hmm', thought: true }], [{ text: 'Hi', thoughtSignature: 'SIG' }], [{ text: '' }]]);
    expect(chunks[2]).toMatchObject({
      candidates: [{ finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 5, thoughtsTokenCount: 4, totalTokenCount: 14, cost: 0.0000015 },
      modelVersion: 'acme/gem',
      responseId: 'req_1',
    });
  });

  it('keeps another protocol’s signature on its thought, tagged', async () => {
    const chunks = await collect([
      { type: 'reasoning-delta', text: 'claude' },
      { type: 'reasoning-signature', signature: 'anthropic:S' },
      { type: 'finish', finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1 } },
    ]);
    expect(chunks.map(partsOf).slice(0, 2)).toEqual([[{ text: 'claude', thought: true }], [{ text: '', thought: true, thoughtSignature: 'anthropic:S' }]]);
  });

  it('sends each function call whole once its arguments are complete, signed when Gemini signed it', async () => {
    const chunks = await collect([
      { type: 'reasoning-signature', signature: 'gemini:CALLSIG' },
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'f' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"x":' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '1}' },
      { type: 'tool-call-start', index: 1, id: 'call_b', name: 'g' },
      { type: 'finish', finishReason: 'tool_calls', usage: { promptTokens: 1, completionTokens: 1 } },
    ]);
    expect(chunks.map(partsOf)).toEqual([
      [{ functionCall: { id: 'call_a', name: 'f', args: { x: 1 } }, thoughtSignature: 'CALLSIG' }],
      [{ functionCall: { id: 'call_b', name: 'g', args: {} } }],
      [{ text: '' }],
    ]);
    expect((chunks[2].candidates as Array<{ finishReason: string }>)[0].finishReason).toBe('STOP');
  });

  it('ends a failed stream with Google’s in-band error', async () => {
    const chunks = await collect([{ type: 'text-delta', text: 'a' }, { type: 'error', error: { code: 'upstream_timeout', message: 'slow', status: 504 } }]);
    expect(chunks[1]).toMatchObject({ error: { code: 504, status: 'DEADLINE_EXCEEDED', message: 'slow', metadata: { request_id: 'req_1' }, details: [{ reason: 'upstream_timeout' }] } });
  });

  it('frames chunks as SSE events or as one JSON array', async () => {
    let sse = '';
    for await (const frame of frameSse(from(['{"a":1}', '{"b":2}']))) sse += frame;
    expect(sse).toBe('data: {"a":1}\r\n\r\ndata: {"b":2}\r\n\r\n');
    let array = '';
    for await (const frame of frameJsonArray(from(['{"a":1}', '{"b":2}']))) array += frame;
    expect(JSON.parse(array)).toEqual([{ a: 1 }, { b: 2 }]);
    let empty = '';
    for await (const frame of frameJsonArray(from<string>([]))) empty += frame;
    expect(empty).toBe('[]');
  });
});

describe('encodeGeminiResponse', () => {
  it('maps finish reasons, usage and both kinds of signature', () => {
    const answer = encodeGeminiResponse(
      {
        content: [
          { type: 'reasoning', text: 'think', signature: 'gemini:G' },
          { type: 'tool-call', id: 'call_1', name: 'f', arguments: '{"a":1}' },
          { type: 'reasoning', text: 'claude', signature: 'anthropic:C' },
          { type: 'text', text: 'done' },
          { type: 'reasoning', text: '', signature: 'gemini:TAIL' },
        ],
        finishReason: 'content_filter',
        usage: { promptTokens: 10, completionTokens: 3, cachedPromptTokens: 4 },
      },
      meta,
      2_000n,
    );
    expect(answer.candidates[0].content.parts).toEqual([
      { text: 'think', thought: true },
      { functionCall: { id: 'call_1', name: 'f', args: { a: 1 } }, thoughtSignature: 'G' },
      { text: 'claude', thought: true, thoughtSignature: 'anthropic:C' },
      { text: 'done' },
      { text: '', thoughtSignature: 'TAIL' },
    ]);
    expect(answer.candidates[0].finishReason).toBe('SAFETY');
    expect(answer.usageMetadata).toEqual({ promptTokenCount: 10, candidatesTokenCount: 3, totalTokenCount: 13, cachedContentTokenCount: 4, cost: 0.000002 });
  });

  it.each([
    ['stop', 'STOP'],
    ['tool_calls', 'STOP'],
    ['length', 'MAX_TOKENS'],
    ['other', 'OTHER'],
  ] as const)('answers %s as %s', (reason, expected) => {
    expect(encodeGeminiResponse({ content: [], finishReason: reason, usage: { promptTokens: 1, completionTokens: 0 } }, meta, 0n).candidates[0].finishReason).toBe(expected);
  });
});
