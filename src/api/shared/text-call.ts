import type { TextProviderApi } from '../../core/protocol-descriptor.js';
import type { RequestedParameter } from '../../core/text-call.js';

/** The call types live in core (generation and routing read them); the styles import them here too. */
export type { DecodedTextCall, OfferedHostedTool, RequestedParameter } from '../../core/text-call.js';

/**
 * A web search domain filter (Messages `allowed_domains` / `blocked_domains`, Responses
 * `filters.allowed_domains`) is a requirement, not a hint: a search restricted to some sites
 * that searched every site instead would answer from sources the client excluded. Of the
 * protocols' searches only Anthropic's web search tool takes domains: OpenAI's Chat Completions
 * `web_search_options` has no filter (only the Responses API's tool has one, and openai-wire
 * endpoints speak Chat Completions), nor has the Gemini API's `googleSearch` (the
 * `excludeDomains` of Google's SDKs is Vertex AI's only). So routing sends it to anthropic-wire
 * endpoints with a search, and refuses a model that has none.
 */
export function webSearchDomainFilter(field: string): RequestedParameter & { onlyOn: { protocols: readonly TextProviderApi[] } } {
  return {
    name: 'web_search',
    field,
    onlyOn: {
      protocols: ['anthropic'],
      why: 'its provider’s web search cannot be restricted by domain (OpenAI’s Chat Completions web search and Gemini’s Google Search grounding take no domain filter), and searching every site instead would not be what was asked',
    },
  };
}

/** Identity of a response as the client sees it. */
export interface ResponseMeta {
  /** The gateway request id (also `x-request-id`); used as the response's `id`. */
  id: string;
  /** The catalog model id that served the request (e.g. `openai/gpt-4o-mini`). */
  model: string;
  /** Unix seconds. */
  created: number;
}
