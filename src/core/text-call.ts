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
}
