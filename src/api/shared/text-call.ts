import type { CanonicalParameter, TextRequest } from '../../core/text-request.js';
import type { RouteRequest } from '../../core/provider-preferences.js';

/** A parameter the client set: its canonical name, and the field name in the client's style. */
export interface RequestedParameter {
  name: CanonicalParameter;
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
