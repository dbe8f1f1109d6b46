import type { Citation } from '../../core/content.js';

import type { MessagesCitation } from '../../wire/anthropic/wire-types.js';

/**
 * A canonical citation as Anthropic's. Sources from other providers (Perplexity) have no quoted
 * text or search-result pointer; they get empty strings, which the Anthropic SDKs accept.
 * https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool#citations
 */
export function encodeCitation(citation: Citation): MessagesCitation {
  return {
    type: 'web_search_result_location',
    url: citation.url,
    title: citation.title ?? null,
    cited_text: citation.citedText ?? '',
    encrypted_index: citation.encryptedIndex ?? '',
  };
}
