import { bedrockStreamException } from '../aws/bedrock-exception.js';
import { decodeEventStream, EventStreamFramingError } from '../aws/event-stream.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import type { SseEvent } from '../shared/parse-sse.js';

/**
 * Claude's stream through Bedrock's InvokeModelWithResponseStream, as the SSE events Anthropic's
 * own API sends: each `chunk` frame's JSON body `{"bytes": base64}` holds one Messages stream
 * event's JSON, named here by its `type`; an exception frame (throttling, a model error) throws
 * its `UpstreamError`, and broken framing a protocol error, which the converters report.
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html
 */
export async function* readBedrockClaudeEvents(providerId: string, chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  try {
    for await (const message of decodeEventStream(chunks)) {
      if (message.headers[':message-type'] === 'exception') throw bedrockStreamException(providerId, message);
      if (message.headers[':message-type'] !== 'event' || message.headers[':event-type'] !== 'chunk') continue;
      const data = decodeChunk(providerId, message.body);
      yield { event: eventType(data), data };
    }
  } catch (error) {
    if (error instanceof EventStreamFramingError) throw createProtocolError(providerId, `sent a broken event stream (${error.message})`, '');
    throw error;
  }
}

function decodeChunk(providerId: string, body: Uint8Array): string {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  let bytes: unknown;
  try {
    bytes = (JSON.parse(text) as { bytes?: unknown }).bytes;
  } catch {
    // reported below
  }
  if (typeof bytes !== 'string') throw createProtocolError(providerId, 'sent a stream chunk without its bytes', text);
  return Buffer.from(bytes, 'base64').toString('utf8');
}

/** The event's `type`, which Anthropic writes first (a full parse only when it is not). */
function eventType(data: string): string | undefined {
  const leading = /^\{\s*"type"\s*:\s*"([a-z_]+)"/.exec(data);
  if (leading) return leading[1];
  try {
    const type = (JSON.parse(data) as { type?: unknown }).type;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}
