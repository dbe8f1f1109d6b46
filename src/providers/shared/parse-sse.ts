import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';

export interface SseEvent {
  /** The `event:` field; undefined for unnamed events (OpenAI, Gemini). */
  event?: string;
  data: string;
  id?: string;
}

export interface SseDecoder {
  /** The events completed by this piece of the body, in order (often several, or none). */
  feed(chunk: Uint8Array | string): readonly SseEvent[];
  /** The events left when the body ends: a trailing event without its blank line. */
  end(): readonly SseEvent[];
}

const noEvents: readonly SseEvent[] = Object.freeze([]);

/**
 * The synchronous core of `parseSse`, for a reader that handles all the events of one upstream
 * read at once (`relay-chat-completions.ts`) instead of one promise per event.
 *
 * Bytes become text through Node's `StringDecoder`, which keeps a character split between two
 * reads for the next one, as `TextDecoder` in streaming mode does, at a sixth of its cost: that
 * mode goes through ICU's converter (88,000 instructions, 11.3 µs, for a 5 KB answer in two reads;
 * 14,000 and 2.5 µs this way; 3.7 % of a streamed request's instructions). Like `TextDecoder`,
 * and as the EventSource rules ask, a byte order mark opening the stream is not text.
 */
export function createSseDecoder(): SseDecoder {
  const decoder = new StringDecoder('utf8');
  let started = false;
  const decode = (bytes: Uint8Array): string => {
    const text = decoder.write(bytes);
    if (started || text === '') return text;
    started = true;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  };
  let pending: SseEvent[] = [];
  // The parser makes a new object per event, of the same fields: kept as it is, not copied.
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const take = (): readonly SseEvent[] => {
    if (pending.length === 0) return noEvents;
    const ready = pending;
    pending = [];
    return ready;
  };
  return {
    feed(chunk) {
      parser.feed(typeof chunk === 'string' ? chunk : decode(chunk));
      return take();
    },
    end() {
      // The blank line the body left out: the parser dispatches an event only at one, and
      // `reset({ consume: true })` parses an unfinished line without dispatching its event.
      parser.feed(`${decoder.end()}\n\n`);
      parser.reset();
      return take();
    },
  };
}

/**
 * Turns a streaming HTTP body into server-sent events, per the WHATWG EventSource parsing rules
 * (CRLF, multi-line data, comments, partial chunks). A trailing event without its blank line is
 * still delivered when the body ends.
 */
export async function* parseSse(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const decoder = createSseDecoder();
  for await (const chunk of body) {
    const events = decoder.feed(chunk);
    if (events.length > 0) yield* events;
  }
  yield* decoder.end();
}
