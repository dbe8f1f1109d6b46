/**
 * HTTP-like status → Anthropic `error.type`, which the Anthropic SDKs expose as `APIError.type`
 * and clients switch on (Claude Code retries `overloaded_error`). 529 is Anthropic's own
 * "overloaded" status; a gateway 503 means the same to the client.
 * https://docs.anthropic.com/en/api/errors
 */
export function mapErrorType(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
    case 529:
      return 'overloaded_error';
    case 504:
      return 'timeout_error';
    default:
      return status >= 400 && status < 500 ? 'invalid_request_error' : 'api_error';
  }
}
