/**
 * The codes an `UpstreamError` (and the in-band `StreamError` made from it) can carry. The first
 * four are client-facing codes of `errors/error-codes.ts` (`service_unavailable`: the gateway's
 * own line for the provider's connections is full, `provider-slots.ts`); `aborted` is internal:
 * our own signal ended the call, so there is no client left to tell and nothing to fail over to.
 */
export type UpstreamErrorCode = 'upstream_error' | 'upstream_timeout' | 'rate_limited' | 'service_unavailable' | 'aborted';

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
  /** `rate_limited` for a 429 and `upstream_error` otherwise, unless the caller says better. */
  readonly code: UpstreamErrorCode;
  /** Seconds the provider asked us to wait (Retry-After), if any. */
  readonly retryAfterSeconds?: number;

  constructor(options: {
    provider: string;
    status: number;
    message: string;
    body?: string;
    retryable?: boolean;
    code?: UpstreamErrorCode;
    retryAfterSeconds?: number;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.name = 'UpstreamError';
    this.provider = options.provider;
    this.status = options.status;
    this.body = (options.body ?? '').slice(0, 2000);
    this.retryable = options.retryable ?? isRetryableStatus(options.status);
    this.code = options.code ?? (options.status === 429 ? 'rate_limited' : 'upstream_error');
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** 408, 409 (Anthropic/OpenAI lock conflicts), 429, 5xx and 529 (Anthropic overloaded) may succeed on retry. */
export function isRetryableStatus(status: number): boolean {
  return status === 0 || status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The in-band form of an upstream failure, for a stream that has already started. */
export function toStreamError(error: UpstreamError): { message: string; code: UpstreamErrorCode; status: number } {
  return { message: error.message, code: error.code, status: streamErrorStatus[error.code] ?? 502 };
}

const streamErrorStatus: Partial<Record<UpstreamErrorCode, number>> = { upstream_timeout: 504, rate_limited: 429 };

/** Our own signal ended the call: not the provider's fault, and nothing to fail over to. */
export function createAbortedError(providerId: string, cause?: unknown): UpstreamError {
  return new UpstreamError({ provider: providerId, status: 0, code: 'aborted', retryable: false, message: 'request aborted', cause });
}
