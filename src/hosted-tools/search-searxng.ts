import { callSearchBackend, recordsOf } from './call-search-backend.js';
import { keepCitable, textOf, type SearchCall, type SearchHit } from './search-hit.js';

/**
 * SearXNG's search API: `GET /search?q=…&format=json` (the instance must list `json` under
 * `search.formats`). It has no result-count parameter, so the first `maxResults` are kept.
 * https://docs.searxng.org/dev/search_api.html
 */
export async function searchSearxng(baseUrl: string, call: SearchCall): Promise<SearchHit[]> {
  const url = new URL(`${baseUrl}/search`);
  url.searchParams.set('q', call.query);
  url.searchParams.set('format', 'json');
  const body = (await callSearchBackend('SearXNG', url, { method: 'GET', headers: {}, signal: call.signal })) as { results?: unknown };
  const hits = recordsOf(body?.results).map((result) => ({
    url: textOf(result.url),
    title: textOf(result.title),
    snippet: textOf(result.content),
    ...(typeof result.publishedDate === 'string' && { pageAge: result.publishedDate }),
  }));
  return keepCitable(hits, call.maxResults);
}
