import type { StreamPart } from '../../../core/stream-part.js';

/**
 * Test support shared by the encoder tests of both styles: wraps encoder output in the `Response`
 * a gateway would send, so the official SDKs parse it exactly as they parse the network.
 */
export function sseResponse(frames: AsyncIterable<string>): Response {
  const encoder = new TextEncoder();
  const iterator = frames[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

export function jsonResponse(payload: unknown): Response {
  return new Response(JSON.stringify(payload), { status: 200, headers: { 'content-type': 'application/json' } });
}

export async function* streamOf(parts: StreamPart[]): AsyncGenerator<StreamPart> {
  for (const part of parts) yield part;
}

export async function collect(frames: AsyncIterable<string>): Promise<string[]> {
  const result: string[] = [];
  for await (const frame of frames) result.push(frame);
  return result;
}
