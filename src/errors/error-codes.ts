/**
 * The one catalog of error codes the gateway answers with: HTTP status, when it happens (the error
 * table of docs/api.md is held against these lines by a test), and whether a client library
 * should retry. The first group is fixed by the interface spec; the rest fill its "not shown"
 * gaps. Modelled on fastify's `lib/errors.js`: one entry per code, nothing thrown elsewhere.
 */
export interface ErrorCatalogEntry {
  status: number;
  /** The "when" column of docs/api.md's error table. */
  when: string;
  /**
   * False for answers that a retry cannot change (a misspelt model is a 503 by the spec): sent as
   * `x-should-retry: false`, which the OpenAI and Anthropic SDKs obey before their status rules.
   */
  retry?: false;
}

export const errorCatalog = {
  invalid_request: { status: 400, when: 'invalid JSON, body not an object, missing, unsupported or out-of-bounds field' },
  invalid_api_key: { status: 401, when: 'key (or admin token) missing, wrong or revoked; a page session ended or unknown' },
  insufficient_balance: { status: 402, when: 'not enough funds (the message states what the request needs and what is available)' },
  messenger_link_required: { status: 403, when: 'a free model without a linked messenger account' },
  forbidden: { status: 403, when: 'an ordinary key on a management endpoint; a page session without `x-csrf-token` on a change, without `x-switchyard-account`, or whose role does not allow the endpoint; a refused sign-in' },
  not_found: { status: 404, when: 'unknown route, or an id the caller may not see' },
  previous_response_not_found: { status: 404, when: '`previous_response_id` unknown, deleted, expired, or another account’s (or another key’s, for an ordinary key)' },
  method_not_allowed: { status: 405, when: 'known path, wrong method (with `Allow`)' },
  request_timeout: { status: 408, when: 'headers or body not received within the timeouts (see "Timeouts and bounds")' },
  expectation_failed: { status: 417, when: 'an `Expect` header other than `100-continue`' },
  payload_too_large: { status: 413, when: 'body over `SWITCHYARD_BODY_LIMIT_BYTES`' },
  uri_too_long: { status: 414, when: 'a path parameter over 500 characters' },
  unsupported_media_type: { status: 415, when: 'a body that is neither JSON nor text' },
  rate_limited: { status: 429, when: 'a request limit is exhausted, or too many open streams (`Retry-After`)' },
  headers_too_large: { status: 431, when: 'request headers over 16 KB' },
  internal_error: { status: 500, when: 'a fault of ours; details go to the log, never to the client' },
  upstream_error: { status: 502, when: 'every provider tried failed; a provider auth or configuration failure is shown without its text' },
  no_available_provider: { status: 503, when: 'no route for the model and endpoint (closest model ids suggested)', retry: false },
  service_unavailable: { status: 503, when: "a dependency is down, the instance is shutting down (`/ready`), too many large uploads at once, or every provider's connections and wait line are full (`Retry-After`)" },
  upstream_timeout: { status: 504, when: 'the provider did not answer in time' },
} as const satisfies Record<string, ErrorCatalogEntry>;

export type ErrorCode = keyof typeof errorCatalog;

/** Code → HTTP status. */
export const errorCodes = Object.fromEntries(Object.entries(errorCatalog).map(([code, entry]) => [code, entry.status])) as { [Code in ErrorCode]: (typeof errorCatalog)[Code]['status'] };
