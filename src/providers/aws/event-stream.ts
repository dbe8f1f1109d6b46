import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

/**
 * One message of AWS's `application/vnd.amazon.eventstream` framing, its string headers as
 * strings (`:message-type` is `event` or `exception`, then `:event-type` or `:exception-type`
 * names it; `:content-type` is usually `application/json`). Headers of other types (AWS sends
 * none on Bedrock's streams) are kept as their text.
 */
export interface EventStreamMessage {
  headers: Record<string, string>;
  body: Uint8Array;
}

/** The codec (prelude and message CRC32s, typed headers) is AWS's own. */
const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** The prelude: total length (4 bytes), headers length (4), prelude CRC (4); then headers, body, message CRC (4). */
const preludeBytes = 12;
const minimumMessageBytes = 16;
/** A frame larger than this is taken for a broken stream rather than buffered: AWS caps event stream messages at 16 MB. */
const maximumMessageBytes = 16 * 1024 * 1024 + 64 * 1024;

/** Thrown when the bytes are not AWS event stream framing (a bad length or CRC, a cut frame at the end). */
export class EventStreamFramingError extends Error {
  override readonly name = 'EventStreamFramingError';
}

/**
 * Decodes an event stream body (undici's, or any async iterable of byte chunks) into messages as
 * their frames complete: a frame may arrive split over chunks, and a chunk may hold many frames.
 * A frame cut off at the end of the body, or one whose CRC fails, throws `EventStreamFramingError`.
 */
export async function* decodeEventStream(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<EventStreamMessage> {
  let buffer: Uint8Array = new Uint8Array(0);
  for await (const received of chunks) {
    const chunk = typeof received === 'string' ? fromUtf8(received) : received;
    buffer = buffer.length === 0 ? chunk : concat(buffer, chunk);
    let offset = 0;
    while (buffer.length - offset >= preludeBytes) {
      const total = new DataView(buffer.buffer, buffer.byteOffset + offset, 4).getUint32(0, false);
      if (total < minimumMessageBytes || total > maximumMessageBytes) throw new EventStreamFramingError(`an event stream frame claims ${total} bytes`);
      if (buffer.length - offset < total) break;
      yield decodeMessage(buffer.subarray(offset, offset + total));
      offset += total;
    }
    // Keep only the unfinished frame, copied so the chunk it came from is not held.
    buffer = offset === buffer.length ? new Uint8Array(0) : offset === 0 ? buffer : buffer.slice(offset);
  }
  if (buffer.length > 0) throw new EventStreamFramingError(`the event stream ended inside a frame (${buffer.length} bytes left)`);
}

/** Decodes exactly one whole frame. */
export function decodeMessage(frame: Uint8Array): EventStreamMessage {
  let decoded;
  try {
    decoded = codec.decode(frame);
  } catch (error) {
    throw new EventStreamFramingError(error instanceof Error ? error.message : String(error));
  }
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries(decoded.headers)) headers[name] = headerText(header);
  return { headers, body: decoded.body };
}

/** Encodes one message with string headers (the simulator's side; also tests). */
export function encodeEventStreamMessage(message: { headers: Record<string, string>; body: Uint8Array | string }): Uint8Array {
  const headers: MessageHeaders = {};
  for (const [name, value] of Object.entries(message.headers)) headers[name] = { type: 'string', value };
  return codec.encode({ headers, body: typeof message.body === 'string' ? fromUtf8(message.body) : message.body });
}

function headerText(header: MessageHeaders[string]): string {
  switch (header.type) {
    case 'string':
      return header.value;
    case 'binary':
      return toUtf8(header.value);
    case 'timestamp':
      return header.value.toISOString();
    default:
      return String(header.value);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a, 0);
  joined.set(b, a.length);
  return joined;
}
