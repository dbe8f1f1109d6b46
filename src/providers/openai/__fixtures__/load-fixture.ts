import { readFileSync } from 'node:fs';

/** The text of a fixture file in this folder. */
export function loadFixture(name: string): string {
  return readFileSync(new URL(name, import.meta.url), 'utf8');
}

/**
 * Replays text as a streaming body in chunks of `chunkSize` bytes, so that events, lines and even
 * multi-byte characters are split across chunks as they are on a real connection.
 */
export async function* replayBody(text: string, chunkSize = 7): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let offset = 0; offset < bytes.length; offset += chunkSize) {
    yield bytes.subarray(offset, offset + chunkSize);
  }
}
