import { GatewayError } from '../../errors/gateway-error.js';
import type { CanonicalParameter, TextRequest } from '../../core/text-request.js';
import type { RouteRequest } from '../../core/provider-preferences.js';
import type { TextProviderApi } from '../../providers/protocol-descriptor.js';

/** A parameter the client set: its canonical name, and the field name in the client's style. */
export interface RequestedParameter {
  name: CanonicalParameter;
  field: string;
  /**
   * A requirement that an endpoint supporting `name` does not meet by that alone: only endpoints
   * whose provider speaks one of `protocols` do (a web search domain filter: only Anthropic's
   * search takes one). `why` is what a refusal says about a model none of whose endpoints do.
   */
  onlyOn?: { protocols: readonly TextProviderApi[]; why: string };
  /**
   * A preference, not a requirement (contract §4): a hosted tool the request only offers, or a
   * reasoning setting. Routing puts the endpoints that honour it first but refuses none for it;
   * where the chosen endpoint does not, the request is served without it and the answer names
   * `field` in `x-switchyard-omitted` (generation/drop-unmet-preferences.ts).
   */
  preference?: true;
}

/**
 * A hosted tool the request offers (`tool_choice` auto or none) that no provider protocol of this
 * gateway runs natively (Responses `image_generation`, `code_interpreter`, `file_search`, `mcp`;
 * Messages `web_fetch_*`, `code_execution_*`). `field` names it in the client's terms, as
 * `x-switchyard-omitted` lists it when the request is served without it.
 */
export interface OfferedHostedTool {
  tool: string;
  field: string;
}

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
export function webSearchDomainFilter(field: string): RequestedParameter {
  return {
    name: 'web_search',
    field,
    onlyOn: {
      protocols: ['anthropic'],
      why: 'its provider’s web search cannot be restricted by domain (OpenAI’s Chat Completions web search and Gemini’s Google Search grounding take no domain filter), and searching every site instead would not be what was asked',
    },
  };
}

/**
 * What an inbound style's decoder produces from a request body: where to route it, the
 * canonical request, and which optional parameters the client set. Routing checks each
 * parameter against the endpoints' `supported_parameters` and refuses the request, naming
 * `field`, when no endpoint of the model supports it.
 */
export interface DecodedTextCall {
  route: RouteRequest;
  request: TextRequest;
  parameters: RequestedParameter[];
  /** Hosted tools offered that no provider runs here; see `OfferedHostedTool`. */
  offeredTools?: OfferedHostedTool[];
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

/**
 * A provider adapter refuses a parameter by its canonical name (`response_format`); the client
 * sent it under its style's name (`text.format` on /responses). Says it in the client's terms.
 */
export function inClientTerms(error: GatewayError, parameters: readonly RequestedParameter[]): GatewayError {
  const requested = parameters.find((parameter) => parameter.name === error.param && parameter.field !== parameter.name);
  if (!requested) return error;
  const message = error.message.replaceAll(`'${requested.name}'`, `'${requested.field}'`);
  return new GatewayError(error.code, message, { param: requested.field, metadata: error.metadata, cause: error });
}
