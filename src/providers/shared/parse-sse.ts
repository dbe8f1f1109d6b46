import { createParser } from 'eventsource-parser';

export interface SseEvent {
  /** The `event:` field; undefined for unnamed events (OpenAI, Gemini). */
  event?: string;
  data: string;
  id?: string;
}

/**
 * Turns a streaming HTTP body into server-sent events, per the WHATWG EventSource parsing rules
 * (CRLF, multi-line data, comments, partial chunks). A trailing event without its blank line is
 * still delivered when the body ends.
 */
export async function* parseSse(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let pending: SseEvent[] = [];
  const parser = createParser({
    onEvent: (event) => {
      pending.push({ event: event.event, data: event.data, id: event.id });
    },
  });
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    if (pending.length > 0) {
      const ready = pending;
      pending = [];
      yield* ready;
    }
  }
  parser.feed(decoder.decode());
  parser.reset({ consume: true });
  yield* pending;
}
