/**
 * A failure talking to a provider. `retryable` decides whether routing may try the same or the
 * next endpoint: only before the first byte has reached the client.
 */
export class UpstreamError extends Error {
  readonly provider: string;
  /** HTTP status from the provider, or 0 when no response arrived (connect failure, timeout). */
  readonly status: number;
  /** The provider's response body (truncated), for logs; never sent to clients verbatim. */
  readonly body: string;
  readonly retryable: boolean;
  /** Gateway error code this failure maps to: `upstream_error`, `timeout`, `rate_limited`… */
  readonly code: string;
  /** Seconds the provider asked us to wait (Retry-After), if any. */
  readonly retryAfterSeconds?: number;

  constructor(options: {
    provider: string;
    status: number;
    message: string;
    body?: string;
    retryable?: boolean;
    code?: string;
    retryAfterSeconds?: number;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.name = 'UpstreamError';
    this.provider = options.provider;
    this.status = options.status;
    this.body = (options.body ?? '').slice(0, 2000);
    this.retryable = options.retryable ?? isRetryableStatus(options.status);
    this.code = options.code ?? (options.status === 0 ? 'upstream_unreachable' : 'upstream_error');
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** 408, 409 (Anthropic/OpenAI lock conflicts), 429, 5xx and 529 (Anthropic overloaded) may succeed on retry. */
export function isRetryableStatus(status: number): boolean {
  return status === 0 || status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The in-band form of an upstream failure, for a stream that has already started. */
export function toStreamError(error: UpstreamError): { message: string; code: string; status: number } {
  return { message: error.message, code: error.code, status: error.code === 'timeout' ? 504 : 502 };
}
