import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { encodeEventStreamMessage } from './encode-event-stream-message.js';
import type { CutFault } from './faults.js';
import type { EncodedStream, StreamEvent, StreamFraming } from './protocol-adapter.js';
import type { RequestScope } from './track-request.js';

/**
 * Writes a streamed reply. Events are paced by their token cost against absolute deadlines (so
 * timer jitter does not add up over a long reply); events that are due together go out in one
 * write, and with no pacing the whole stream is a single write. Binary framing (AWS event stream)
 * is carried as a latin1 string, one char per byte, so that text and bytes share one write path.
 */
export async function writeEventStream(
  response: ServerResponse,
  scope: RequestScope,
  stream: EncodedStream,
  options: { tokensPerSecond: number; headers: OutgoingHttpHeaders; cut?: CutFault },
): Promise<void> {
  const { framing, events } = stream;
  const { cut } = options;
  response.writeHead(200, {
    ...options.headers,
    'content-type': contentTypes[framing],
    'cache-control': 'no-cache',
  });
  const encoding: BufferEncoding = framing === 'aws-eventstream' ? 'latin1' : 'utf8';
  const limit = cut ? Math.min(cut.after, events.length) : events.length;
  const msPerToken = options.tokensPerSecond > 0 ? 1000 / options.tokensPerSecond : 0;
  let due = performance.now();
  let pending = '';
  for (let index = 0; index < limit; index++) {
    const event = events[index];
    if (msPerToken > 0 && event.tokens > 0) {
      due += event.tokens * msPerToken;
      const wait = due - performance.now();
      if (wait >= 1) {
        if (pending !== '') response.write(pending, encoding);
        pending = '';
        if (!(await scope.sleep(wait))) return;
      }
    }
    pending += frameEvent(framing, event, index);
  }
  if (scope.closed) return;
  if (!cut || cut.after >= events.length) {
    response.end(pending + closeFraming(framing), encoding);
    return;
  }
  switch (cut.kind) {
    case 'disconnect':
      response.write(pending, encoding, () => scope.destroy());
      return;
    case 'stall':
      // Headers must reach the client even when no event does, or it is not a stalled stream.
      if (pending === '') response.flushHeaders();
      else response.write(pending, encoding);
      return;
    case 'malformed': {
      const next = events[limit];
      if (framing === 'aws-eventstream') {
        // A binary frame cut in half: its length prefix promises bytes that never come.
        const frame = frameEvent(framing, next, limit);
        response.end(pending + frame.slice(0, Math.floor(frame.length / 2)), encoding);
        return;
      }
      const broken = { ...next, data: next.data.slice(0, Math.max(1, Math.floor(next.data.length / 2))) };
      response.end(pending + frameEvent(framing, broken, limit));
      return;
    }
    case 'error':
      response.end(pending + frameEvent(framing, stream.errorEvent, limit) + closeFraming(framing), encoding);
      return;
  }
}

const contentTypes: Record<StreamFraming, string> = {
  sse: 'text/event-stream; charset=utf-8',
  'sse-crlf': 'text/event-stream; charset=utf-8',
  'json-array': 'application/json; charset=UTF-8',
  'aws-eventstream': 'application/vnd.amazon.eventstream',
};

function frameEvent(framing: StreamFraming, event: StreamEvent, index: number): string {
  switch (framing) {
    // One binary message per event: `:event-type` (or `:exception-type`) from the event's name, its data the JSON payload.
    case 'aws-eventstream': {
      const messageType = event.messageType ?? 'event';
      const headers = { [messageType === 'event' ? ':event-type' : ':exception-type']: event.event ?? 'chunk', ':content-type': 'application/json', ':message-type': messageType };
      return Buffer.from(encodeEventStreamMessage({ headers, body: event.data })).toString('latin1');
    }
    case 'sse':
      return event.event === undefined ? `data: ${event.data}\n\n` : `event: ${event.event}\ndata: ${event.data}\n\n`;
    // Gemini ends its SSE events with CRLF pairs; clients must accept every line ending.
    case 'sse-crlf':
      return `data: ${event.data}\r\n\r\n`;
    // Gemini's streamGenerateContent without alt=sse: one JSON array, written element by element.
    case 'json-array':
      return `${index === 0 ? '[' : ',\r\n'}${event.data}`;
  }
}

function closeFraming(framing: StreamFraming): string {
  return framing === 'json-array' ? ']' : '';
}
