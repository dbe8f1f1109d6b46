import { readFileSync } from 'node:fs';
import type { StreamPart } from '../../../core/stream-part.js';
import { collect } from '../../shared/__fixtures__/collect.js';
import { parseSse } from '../../shared/parse-sse.js';
import { convertAnthropicStream } from '../convert-stream.js';

/** Test helpers: fixtures are upstream payloads captured in the documented shapes. */
export function readFixture(name: string): string {
  return readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');
}

export function readJsonFixture<T = unknown>(name: string): T {
  return JSON.parse(readFixture(name)) as T;
}

/** Delivers `text` in byte chunks of `size`, splitting events and multi-byte characters as a network would. */
export async function* chunked(text: string, size = 37): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

/** Runs an SSE transcript through the shared SSE parser and the Anthropic stream converter. */
export function convertSseText(text: string): Promise<StreamPart[]> {
  return collect(convertAnthropicStream(parseSse(chunked(text)), { providerId: 'anthropic' }));
}
