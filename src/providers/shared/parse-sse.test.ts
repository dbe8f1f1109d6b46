import { describe, expect, it } from 'vitest';
import { createSseDecoder, parseSse } from './parse-sse.js';

const bytes = (text: string) => new TextEncoder().encode(text);

async function* reads(...chunks: Array<Uint8Array | string>): AsyncGenerator<Uint8Array | string> {
  for (const chunk of chunks) yield chunk;
}

async function collect(body: AsyncIterable<Uint8Array | string>) {
  const events = [];
  for await (const event of parseSse(body)) events.push(event);
  return events;
}

describe('createSseDecoder', () => {
  it('keeps a character whose bytes two reads split for the read that completes it', () => {
    // "é" is two bytes, "🚀" four: each is cut in the middle by the read boundary.
    const whole = bytes('data: {"text":"café 🚀"}\n\n');
    const decoder = createSseDecoder();
    const cutInE = whole.indexOf(0xc3) + 1;
    const cutInRocket = whole.indexOf(0xf0) + 2;
    const events = [
      ...decoder.feed(whole.subarray(0, cutInE)),
      ...decoder.feed(whole.subarray(cutInE, cutInRocket)),
      ...decoder.feed(whole.subarray(cutInRocket)),
      ...decoder.end(),
    ];
    expect(events.map((event) => event.data)).toEqual(['{"text":"café 🚀"}']);
  });

  it('drops a byte order mark that opens the stream, and only there', () => {
    const decoder = createSseDecoder();
    const events = [...decoder.feed(bytes('\ufeffdata: one\n\n')), ...decoder.feed(bytes('data: \ufefftwo\n\n')), ...decoder.end()];
    expect(events.map((event) => event.data)).toEqual(['one', '\ufefftwo']);
  });

  it('drops a byte order mark split across the first reads', () => {
    const first = bytes('\ufeffdata: x\n\n');
    const decoder = createSseDecoder();
    const events = [...decoder.feed(first.subarray(0, 1)), ...decoder.feed(first.subarray(1, 2)), ...decoder.feed(first.subarray(2)), ...decoder.end()];
    expect(events.map((event) => event.data)).toEqual(['x']);
  });

  it('ends a stream cut inside a character with a replacement character, as a UTF-8 decoder does', () => {
    const decoder = createSseDecoder();
    const whole = bytes('data: ok\n\ndata: caf\u00e9');
    const events = [...decoder.feed(whole.subarray(0, whole.length - 1)), ...decoder.end()];
    expect(events.map((event) => event.data)).toEqual(['ok', 'caf\ufffd']);
  });
});

describe('parseSse', () => {
  it('reads named events, CRLF line ends, multi-line data and a last event without its blank line', async () => {
    const events = await collect(reads(bytes('event: message_start\r\ndata: {"a":1}\r\n\r\n: comment\n\ndata: line one\ndata: line'), ' two\n\ndata: [DONE]'));
    expect(events).toEqual([
      expect.objectContaining({ event: 'message_start', data: '{"a":1}' }),
      expect.objectContaining({ data: 'line one\nline two' }),
      expect.objectContaining({ data: '[DONE]' }),
    ]);
  });
});
