import type { Citation } from '../../core/content.js';

/**
 * OpenAI's `url_citation` annotation (as OpenAI's search models and OpenRouter send it), with
 * OpenRouter's `content` for the quoted source text. Indices are UTF-16 offsets into `content`.
 * The relay writes it for a vendor's own citations; the Chat Completions encoder for every
 * translated answer.
 * https://platform.openai.com/docs/guides/tools-web-search#output-and-citations
 */
export interface ChatAnnotation {
  type: 'url_citation';
  url_citation: { url: string; title: string; start_index: number; end_index: number; content?: string };
}

export function encodeUrlCitation(citation: Citation, startIndex: number, endIndex: number): ChatAnnotation {
  const urlCitation: ChatAnnotation['url_citation'] = { url: citation.url, title: citation.title ?? '', start_index: startIndex, end_index: endIndex };
  if (citation.citedText !== undefined) urlCitation.content = citation.citedText;
  return { type: 'url_citation', url_citation: urlCitation };
}
