import { errors as undiciErrors } from 'undici';
import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../core/stream-part.js';
import { parseSse } from '../shared/parse-sse.js';
import type { UpstreamError } from '../../errors/upstream-error.js';
import { convertStream } from './convert-stream.js';
import { readFixture } from './__fixtures__/read-fixture.js';

/** Serves a transcript as a body would arrive: bytes cut at arbitrary places, optionally failing at the end. */
async function* bytesOf(text: string, chunkSize = 37, failWith?: Error): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let offset = 0; offset < bytes.length; offset += chunkSize) yield bytes.slice(offset, offset + chunkSize);
  if (failWith) throw failWith;
}

async function run(text: string, failWith?: Error): Promise<{ parts: StreamPart[]; failures: UpstreamError[] }> {
  const failures: UpstreamError[] = [];
  const parts: StreamPart[] = [];
  const stream = convertStream(parseSse(bytesOf(text, 37, failWith)), { providerId: 'google', onUpstreamError: (error) => failures.push(error) });
  for await (const part of stream) parts.push(part);
  return { parts, failures };
}

const sse = (...chunks: unknown[]) => chunks.map((chunk) => `data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\r\n\r\n`).join('');

describe('convertStream', () => {
  it('turns a thinking + text transcript into deltas, with usage from the last chunk', async () => {
    const { parts, failures } = await run(readFixture('stream-text.sse'));
    expect(parts).toEqual([
      // The prompt is counted in the first chunk: known from the start.
      { type: 'start', providerResponseId: 'vQRpaqzAPN2M9MoPxPq2uQ4', providerModel: 'gemini-2.5-flash', usage: { promptTokens: 15, completionTokens: 0 } },
      { type: 'reasoning-delta', text: '**Planning the haiku**\n\nFive, seven, five syllables about autumn.' },
      { type: 'text-delta', text: 'Crimson leaves drift down,' },
      { type: 'text-delta', text: '\nthe maple lets go softly—' },
      { type: 'text-delta', text: '\nsky wide, branches bare.' },
      { type: 'reasoning-signature', signature: 'EpcCCpQCARFNMg9GpVP+YGO3zJobwN8a+4XBKHGs8ZZ75yF6E7qlkth0vQN/W+uyW0wG4BXMuGd5UQ==' },
      { type: 'finish', finishReason: 'stop', usage: { promptTokens: 15, completionTokens: 72, reasoningTokens: 52 } },
    ]);
    expect(failures).toEqual([]);
  });

  it('turns whole function calls into start + one delta each, numbered in order, finishing with tool_calls', async () => {
    const { parts } = await run(readFixture('stream-function-calls.sse'));
    expect(parts.slice(1)).toEqual([
      { type: 'reasoning-signature', signature: expect.stringMatching(/^EpEgCo4g/) },
      { type: 'tool-call-start', index: 0, id: 'call_QHiLaa6LBrb8vdIPoNztsAg_0', name: 'get_weather' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":"Paris"}' },
      { type: 'tool-call-start', index: 1, id: 'call_QHiLaa6LBrb8vdIPoNztsAg_1', name: 'get_time' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"timezone":"Europe/Paris"}' },
      { type: 'finish', finishReason: 'tool_calls', usage: { promptTokens: 29, completionTokens: 835, reasoningTokens: 804 } },
    ]);
  });

  it('ends with an error part on an in-band error object, and reports the upstream status', async () => {
    const { parts, failures } = await run(readFixture('stream-in-band-error.sse'));
    expect(parts.map((part) => part.type)).toEqual(['start', 'text-delta', 'error']);
    expect(parts.at(-1)).toEqual({
      type: 'error',
      error: { code: 'upstream_error', status: 502, message: expect.stringContaining('UNAVAILABLE: The model is overloaded') },
    });
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ status: 503, retryable: true, provider: 'google' });
  });

  it('ends with an error part on a chunk that is not JSON, and reads nothing after it', async () => {
    const text = sse({ candidates: [{ content: { parts: [{ text: 'Hi' }] } }] }, '{"candidates": [', { candidates: [{ content: { parts: [{ text: 'never' }] }, finishReason: 'STOP' }] });
    const { parts, failures } = await run(text);
    expect(parts.map((part) => part.type)).toEqual(['start', 'text-delta', 'error']);
    expect(failures[0]).toMatchObject({ retryable: true, message: expect.stringContaining('not a JSON object') });
  });

  it('ends with an error part when the body ends before any finish reason', async () => {
    const { parts } = await run(sse({ responseId: 'r', candidates: [{ content: { parts: [{ text: 'Half a sen' }] } }] }));
    expect(parts.map((part) => part.type)).toEqual(['start', 'text-delta', 'error']);
    expect(parts.at(-1)).toMatchObject({ error: { message: expect.stringContaining('without a finish reason') } });
  });

  it('ends with an error part on an empty body, without a start', async () => {
    const { parts } = await run('');
    expect(parts.map((part) => part.type)).toEqual(['error']);
  });

  it('maps a transport failure while reading to an in-band timeout error', async () => {
    const text = sse({ candidates: [{ content: { parts: [{ text: 'Hello' }] } }] });
    const { parts, failures } = await run(text, new undiciErrors.BodyTimeoutError());
    expect(parts.map((part) => part.type)).toEqual(['start', 'text-delta', 'error']);
    expect(parts.at(-1)).toMatchObject({ error: { code: 'upstream_timeout', status: 504 } });
    expect(failures[0].code).toBe('upstream_timeout');
  });

  it('finishes with content_filter when the prompt is blocked, keeping the prompt tokens', async () => {
    const { parts } = await run(sse({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 }, responseId: 'r' }));
    expect(parts).toEqual([
      { type: 'start', providerResponseId: 'r', providerModel: undefined, usage: { promptTokens: 9, completionTokens: 0 } },
      { type: 'finish', finishReason: 'content_filter', usage: { promptTokens: 9, completionTokens: 0 } },
    ]);
  });

  it('takes the finish reason from the last chunk that has one, and usage sent after it', async () => {
    const { parts } = await run(sse(
      { candidates: [{ content: { parts: [{ text: 'Long answer' }] }, finishReason: 'MAX_TOKENS' }] },
      { candidates: [{ content: { parts: [] } }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 100 } },
    ));
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: 'length', usage: { promptTokens: 5, completionTokens: 100 } });
    expect(parts.filter((part) => part.type === 'finish' || part.type === 'error')).toHaveLength(1);
  });
});
