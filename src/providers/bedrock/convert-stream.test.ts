import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../core/stream-part.js';
import { encodeEventStreamMessage } from '../aws/event-stream.js';
import { collect } from '../shared/__fixtures__/collect.js';
import { readConverseMessages } from './bedrock-adapter.js';
import { convertConverseStream } from './convert-stream.js';
import { chunked, eventStreamOf } from './__fixtures__/read-fixture.js';

// ConverseStream answers vendored from vercel/ai (see __fixtures__/SOURCES.md), framed as Bedrock sends them.
const convert = (bytes: Uint8Array, size = 37): Promise<StreamPart[]> =>
  collect(convertConverseStream(readConverseMessages(chunked(bytes, size), 'bedrock'), { providerId: 'bedrock' }));
const text = (parts: StreamPart[]) => parts.flatMap((part) => (part.type === 'text-delta' ? [part.text] : [])).join('');
const frame = (messageType: string, type: string, payload: unknown) =>
  encodeEventStreamMessage({ headers: { [messageType === 'event' ? ':event-type' : ':exception-type']: type, ':content-type': 'application/json', ':message-type': messageType }, body: JSON.stringify(payload) });

describe('convertConverseStream', () => {
  it('streams a recorded text answer, frames split across chunks, finishing with metadata usage', async () => {
    const parts = await convert(eventStreamOf('amazon-bedrock-text.chunks.txt'), 13);
    expect(parts[0]).toEqual({ type: 'start' });
    expect(text(parts)).toBe('Let me count the "r"s in "strawberry":\n\ns-t-**r**-a-w-b-e-**r**-**r**-y\n\nThere are **3** r\'s in "strawberry."');
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: 'stop', usage: { promptTokens: 22, completionTokens: 55 } });
  });

  it('streams recorded reasoning, its signature after its text', async () => {
    const parts = await convert(eventStreamOf('amazon-bedrock-reasoning.chunks.txt'));
    const reasoning = parts.flatMap((part) => (part.type === 'reasoning-delta' ? [part.text] : [])).join('');
    expect(reasoning).toContain('So there are 3 r\'s.');
    const signatureAt = parts.findIndex((part) => part.type === 'reasoning-signature');
    expect(parts[signatureAt]).toMatchObject({ signature: expect.stringMatching(/^Ep0CCkgICxAB/) });
    expect(signatureAt).toBeLessThan(parts.findIndex((part) => part.type === 'text-delta'));
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', usage: { promptTokens: 51, completionTokens: 94 } });
  });

  it('streams tool calls numbered in order, metadata before messageStop, and {} for a call without arguments', async () => {
    const calls = await convert(eventStreamOf('amazon-bedrock-json-tool-text-then-weather-then-json.1.chunks.txt'));
    expect(calls.filter((part) => part.type === 'tool-call-start')).toEqual([
      { type: 'tool-call-start', index: 0, id: 'weather-tool-1', name: 'weather' },
      { type: 'tool-call-start', index: 1, id: 'weather-tool-2', name: 'weather' },
    ]);
    const argumentsOf = (parts: StreamPart[], index: number) => parts.flatMap((part) => (part.type === 'tool-call-delta' && part.index === index ? [part.argumentsDelta] : [])).join('');
    expect(JSON.parse(argumentsOf(calls, 0))).toEqual({ location: 'San Francisco' });
    expect(calls.at(-1)).toEqual({ type: 'finish', finishReason: 'tool_calls', usage: { promptTokens: 500, completionTokens: 100 } });
    const noArgs = await convert(eventStreamOf('amazon-bedrock-tool-no-args.chunks.txt'));
    expect(argumentsOf(noArgs, 0)).toBe('{}');
    expect(text(noArgs)).toBe("I'll update the issue list for you.");
  });

  it('ends with an error part on an exception frame, with the status its type stands for', async () => {
    const bytes = Buffer.concat([frame('event', 'messageStart', { role: 'assistant' }), frame('event', 'contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }), frame('exception', 'throttlingException', { message: 'Too many tokens' })]);
    const parts = await convert(bytes);
    expect(parts.at(-1)).toEqual({ type: 'error', error: { code: 'rate_limited', status: 429, message: 'bedrock stream error (throttlingException): Too many tokens' } });
    const failed = await convert(Buffer.concat([frame('event', 'messageStart', {}), frame('exception', 'modelStreamErrorException', { message: 'boom', originalStatusCode: 500 })]));
    expect(failed.at(-1)).toMatchObject({ type: 'error', error: { code: 'upstream_error', status: 502, message: 'bedrock stream error (modelStreamErrorException): boom' } });
  });

  it('fails a stream that ends before messageStop, or whose framing is broken', async () => {
    const cut = await convert(Buffer.concat([frame('event', 'messageStart', {}), frame('event', 'contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } })]));
    expect(cut.at(-1)).toMatchObject({ type: 'error', error: { message: 'bedrock stream ended before messageStop' } });
    const whole = frame('event', 'messageStart', {});
    const broken = await convert(Buffer.concat([whole, whole.subarray(0, 20)]));
    expect(broken.at(-1)).toMatchObject({ type: 'error', error: { status: 502, message: expect.stringContaining('broken event stream') } });
  });

  it('finishes at messageStop when the body ends without metadata', async () => {
    const parts = await convert(Buffer.concat([frame('event', 'messageStart', {}), frame('event', 'contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }), frame('event', 'messageStop', { stopReason: 'max_tokens' })]));
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: 'length', usage: { promptTokens: 0, completionTokens: 0, estimated: true } });
  });
});
