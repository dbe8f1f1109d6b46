import { request } from 'undici';
import { SearchFailedError } from './search-hit.js';

/**
 * One HTTP call to a search backend, its JSON body read. Any failure — refused connection,
 * non-2xx status, a body that is not JSON, the signal (timeout or client gone) — is a
 * `SearchFailedError` whose message names the backend and never the key.
 */
export async function callSearchBackend(
  backend: string,
  url: URL,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: unknown; signal: AbortSignal },
): Promise<unknown> {
  try {
    const response = await request(url, {
      method: init.method,
      headers: { accept: 'application/json', ...(init.body !== undefined && { 'content-type': 'application/json' }), ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
    });
    if (response.statusCode < 200 || response.statusCode >= 300) {
      await response.body.dump();
      throw new SearchFailedError(`${backend} answered HTTP ${response.statusCode}`);
    }
    return await response.body.json();
  } catch (error) {
    if (error instanceof SearchFailedError) throw error;
    const reason = init.signal.aborted ? 'timed out' : `failed (${(error as Error).message})`;
    throw new SearchFailedError(`${backend} search ${reason}`, { cause: error });
  }
}

export function recordsOf(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter((entry): entry is Record<string, unknown> => entry !== null && typeof entry === 'object') : [];
}
