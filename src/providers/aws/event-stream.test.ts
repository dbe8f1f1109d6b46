import { describe, expect, it } from 'vitest';
import { decodeEventStream, encodeEventStreamMessage, EventStreamFramingError, type EventStreamMessage } from './event-stream.js';

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<EventStreamMessage[]> {
  const messages: EventStreamMessage[] = [];
  for await (const message of decodeEventStream(chunks)) messages.push(message);
  return messages;
}

const frames = [
  encodeEventStreamMessage({ headers: { ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' }, body: '{"bytes":"eyJ0eXBlIjoibWVzc2FnZV9zdGFydCJ9"}' }),
  encodeEventStreamMessage({ headers: { ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' }, body: '{"bytes":"eyJ0eXBlIjoibWVzc2FnZV9zdG9wIn0="}' }),
  encodeEventStreamMessage({ headers: { ':exception-type': 'throttlingException', ':content-type': 'application/json', ':message-type': 'exception' }, body: '{"message":"Too many requests"}' }),
];
const stream = Buffer.concat(frames);

describe('AWS event stream decoding', () => {
  it.each([1, 3, 16, 57, stream.length])('yields each message once its frame is complete, in chunks of %i bytes', async (size) => {
    const messages = await collect(chunked(stream, size));
    expect(messages.map((message) => message.headers)).toEqual([
      { ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' },
      { ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' },
      { ':exception-type': 'throttlingException', ':content-type': 'application/json', ':message-type': 'exception' },
    ]);
    expect(Buffer.from(messages[2]!.body).toString()).toBe('{"message":"Too many requests"}');
  });

  it('refuses a frame cut off at the end of the body', async () => {
    await expect(collect(chunked(stream.subarray(0, stream.length - 5), 64))).rejects.toBeInstanceOf(EventStreamFramingError);
  });

  it('refuses a frame whose CRC does not match its bytes', async () => {
    const broken = Buffer.from(stream);
    broken[frames[0]!.length - 6] ^= 0xff;
    await expect(collect(chunked(broken, 64))).rejects.toBeInstanceOf(EventStreamFramingError);
  });

  it('refuses bytes that are not event stream framing', async () => {
    await expect(collect(chunked(Buffer.from('{"message":"not a stream at all, just JSON"}'), 64))).rejects.toBeInstanceOf(EventStreamFramingError);
  });
});
