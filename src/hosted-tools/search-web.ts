import type { HostedToolsConfig } from '../config/types.js';
import { searchBrave } from './search-brave.js';
import { searchExa } from './search-exa.js';
import type { SearchHit } from './search-hit.js';
import { searchSearxng } from './search-searxng.js';
import { searchTavily } from './search-tavily.js';
import { toAbortSignal, type CancelSignal } from '../core/cancel-signal.js';

export type WebSearchSettings = NonNullable<HostedToolsConfig['webSearch']>;

/**
 * Runs one search on the configured backend, bounded by `timeoutMs` and by `signal` (the client
 * going away). Throws `SearchFailedError` on any failure.
 */
export async function searchWeb(settings: WebSearchSettings, query: string, signal: CancelSignal): Promise<SearchHit[]> {
  const call = { query, maxResults: settings.maxResults, signal: AbortSignal.any([toAbortSignal(signal), AbortSignal.timeout(settings.timeoutMs)]) };
  switch (settings.backend) {
    case 'searxng':
      return searchSearxng(settings.baseUrl, call);
    case 'brave':
      return searchBrave(settings.baseUrl, settings.apiKey, call);
    case 'tavily':
      return searchTavily(settings.baseUrl, settings.apiKey, call);
    case 'exa':
      return searchExa(settings.baseUrl, settings.apiKey, call);
  }
}
