import { readFileSync } from 'node:fs';
import { encodeEventStreamMessage } from '../../aws/event-stream.js';

/** A fixture's text. */
export function readFixture(name: string): string {
  return readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');
}

export function readJsonFixture<T = unknown>(name: string): T {
  return JSON.parse(readFixture(name)) as T;
}

/**
 * A `.chunks.txt` recording (one `{"<event type>": payload}` per line) as the event stream bytes
 * Bedrock sends: one binary message per line.
 */
export function eventStreamOf(name: string): Uint8Array {
  const frames = readFixture(name)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [[eventType, payload]] = Object.entries(JSON.parse(line) as Record<string, unknown>) as [[string, unknown]];
      return encodeEventStreamMessage({ headers: { ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' }, body: JSON.stringify(payload) });
    });
  return Buffer.concat(frames);
}

/** Delivers bytes in chunks of `size`, splitting frames as a network would. */
export async function* chunked(bytes: Uint8Array, size = 37): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}
