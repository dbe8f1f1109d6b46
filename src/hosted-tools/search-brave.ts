import { callSearchBackend, recordsOf } from './call-search-backend.js';
import { keepCitable, textOf, type SearchCall, type SearchHit } from './search-hit.js';

/**
 * Brave's Web Search API: `GET {base}/web/search?q=…&count=…` with `X-Subscription-Token`;
 * results under `web.results` (`title`, `url`, `description`, `page_age`).
 * https://api-dashboard.search.brave.com/app/documentation/web-search/get-started
 */
export async function searchBrave(baseUrl: string, apiKey: string, call: SearchCall): Promise<SearchHit[]> {
  const url = new URL(`${baseUrl}/web/search`);
  url.searchParams.set('q', call.query);
  url.searchParams.set('count', String(call.maxResults));
  const body = (await callSearchBackend('Brave', url, { method: 'GET', headers: { 'x-subscription-token': apiKey }, signal: call.signal })) as {
    web?: { results?: unknown };
  };
  const hits = recordsOf(body?.web?.results).map((result) => ({
    url: textOf(result.url),
    title: textOf(result.title),
    snippet: textOf(result.description),
    ...(typeof result.page_age === 'string' && { pageAge: result.page_age }),
  }));
  return keepCitable(hits, call.maxResults);
}
