import type { Citation } from '../../core/content.js';
import { asArray, asRecord, asString, type JsonRecord } from '../shared/lenient-json.js';

/**
 * Perplexity lists the sources of an answer beside it: `citations` (URLs, which the text cites
 * as [1], [2]…) and `search_results` (with titles). Both repeat in every stream chunk.
 * https://docs.perplexity.ai/api-reference/chat-completions-post
 */
export function readCitations(record: JsonRecord): Citation[] | undefined {
  const urls = asArray(record.citations).map(asString).filter((url): url is string => url !== undefined && url !== '');
  const results = asArray(record.search_results).map(asRecord);
  if (urls.length === 0) {
    for (const result of results) {
      const url = asString(result?.url);
      if (url) urls.push(url);
    }
  }
  if (urls.length === 0) return undefined;
  const titles = new Map<string, string>();
  for (const result of results) {
    const url = asString(result?.url);
    const title = asString(result?.title);
    if (url && title) titles.set(url, title);
  }
  return urls.map((url) => {
    const title = titles.get(url);
    return title === undefined ? { url } : { url, title };
  });
}
