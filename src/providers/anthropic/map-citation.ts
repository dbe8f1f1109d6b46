import type { Citation } from '../../core/content.js';
import type { AnthropicCitation } from '../../wire/anthropic/wire-types.js';
import { asObjects } from '../shared/lenient-json.js';

/**
 * An Anthropic text-block citation → canonical, for the kinds that point at a web page
 * (`web_search_result_location`, from the web search and fetch tools). Citations of documents
 * in the prompt have no URL and no canonical form yet; they are skipped.
 * https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool#citations
 */
export function mapAnthropicCitation(citation: AnthropicCitation | undefined): Citation | undefined {
  if (typeof citation?.url !== 'string' || citation.url === '') return undefined;
  const mapped: Citation = { url: citation.url };
  if (typeof citation.title === 'string') mapped.title = citation.title;
  if (typeof citation.cited_text === 'string') mapped.citedText = citation.cited_text;
  if (typeof citation.encrypted_index === 'string') mapped.encryptedIndex = citation.encrypted_index;
  return mapped;
}

export function mapAnthropicCitations(citations: AnthropicCitation[] | null | undefined): Citation[] {
  const mapped: Citation[] = [];
  for (const citation of asObjects<AnthropicCitation>(citations)) {
    const entry = mapAnthropicCitation(citation);
    if (entry) mapped.push(entry);
  }
  return mapped;
}

/**
 * The pages a `web_search_tool_result` block found, as citations of the whole answer. Only the
 * ones no text cites are worth adding: `known` holds the URLs already cited, and grows.
 */
export function mapSearchResults(content: unknown, known: Set<string>): Citation[] {
  if (!Array.isArray(content)) return [];
  const sources: Citation[] = [];
  for (const result of content as Array<{ type?: unknown; url?: unknown; title?: unknown } | null>) {
    if (result?.type !== 'web_search_result' || typeof result.url !== 'string' || known.has(result.url)) continue;
    known.add(result.url);
    sources.push(typeof result.title === 'string' ? { url: result.url, title: result.title } : { url: result.url });
  }
  return sources;
}
