import { callSearchBackend, recordsOf } from './call-search-backend.js';
import { keepCitable, textOf, type SearchCall, type SearchHit } from './search-hit.js';

/** Characters of page text asked per result: enough for the model to cite, small enough to keep the prompt short. */
const textCharacters = 1000;

/**
 * Exa's search: `POST {base}/search` with `x-api-key` and `{query, numResults, contents: {text}}`;
 * results under `results` (`title`, `url`, `publishedDate`, `text`).
 * https://exa.ai/docs/reference/search
 */
export async function searchExa(baseUrl: string, apiKey: string, call: SearchCall): Promise<SearchHit[]> {
  const body = (await callSearchBackend('Exa', new URL(`${baseUrl}/search`), {
    method: 'POST',
    headers: { 'x-api-key': apiKey },
    body: { query: call.query, numResults: call.maxResults, contents: { text: { maxCharacters: textCharacters } } },
    signal: call.signal,
  })) as { results?: unknown };
  const hits = recordsOf(body?.results).map((result) => ({
    url: textOf(result.url),
    title: textOf(result.title),
    snippet: textOf(result.text),
    ...(typeof result.publishedDate === 'string' && { pageAge: result.publishedDate }),
  }));
  return keepCitable(hits, call.maxResults);
}
