import type { CanonicalParameter, TextRequest } from './text-request.js';
import type { RouteRequest } from './provider-preferences.js';

// A decoded text call: what every client style hands generation, and generation routing, so
// that the layers below the api read no api module (arrows run api → generation → routing → providers).

/** A parameter the client set: its canonical name, and the field name in the client's style. */
export interface RequestedParameter {
  name: CanonicalParameter;
  field: string;
  /**
   * A requirement that an endpoint supporting `name` does not meet by that alone: only endpoints
   * whose provider speaks one of `protocols` (provider `api` names) do (a web search domain
   * filter: only Anthropic's search takes one). `why` is what a refusal says about a model none of whose endpoints do.
   */
  onlyOn?: { protocols: readonly string[]; why: string };
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
