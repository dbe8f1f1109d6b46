import { callSearchBackend, recordsOf } from './call-search-backend.js';
import { keepCitable, textOf, type SearchCall, type SearchHit } from './search-hit.js';

/**
 * Tavily's search: `POST {base}/search` with `Authorization: Bearer tvly-…` and
 * `{query, max_results}`; results under `results` (`title`, `url`, `content`, `score`).
 * https://docs.tavily.com/documentation/api-reference/endpoint/search
 */
export async function searchTavily(baseUrl: string, apiKey: string, call: SearchCall): Promise<SearchHit[]> {
  const body = (await callSearchBackend('Tavily', new URL(`${baseUrl}/search`), {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    body: { query: call.query, max_results: call.maxResults },
    signal: call.signal,
  })) as { results?: unknown };
  const hits = recordsOf(body?.results).map((result) => ({
    url: textOf(result.url),
    title: textOf(result.title),
    snippet: textOf(result.content),
    ...(typeof result.published_date === 'string' && { pageAge: result.published_date }),
  }));
  return keepCitable(hits, call.maxResults);
}
