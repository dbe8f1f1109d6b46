import { describe, expect, it } from 'vitest';
import { createSseDecoder } from './parse-sse.js';

const bytes = (text: string) => new TextEncoder().encode(text);

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
});

