import { UpstreamError } from '../../errors/upstream-error.js';

/**
 * FastAPI-style error bodies: Voyage documents `{"detail": "..."}` for its 4xx answers (the
 * OpenAPI of https://docs.voyageai.com/reference/embeddings-api, as voyage-ai/typescript-sdk
 * ships it), and Jina's API (https://api.jina.ai/openapi.json) lists FastAPI's "422 Validation
 * Error", whose `detail` is a list of `{loc, msg}`. Undefined when the body has no `detail` (the
 * shared reader has already taken `error.message` or `message`).
 */
export function readErrorDetail(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const detail = (parsed as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string' && detail) return detail.slice(0, 500);
  if (!Array.isArray(detail)) return undefined;
  const parts = detail.map((item: { loc?: unknown; msg?: unknown } | null) => {
    const location = Array.isArray(item?.loc) ? item.loc.filter((part) => part !== 'body').join('.') : '';
    const message = typeof item?.msg === 'string' ? item.msg : '';
    return location ? `${location}: ${message}` : message;
  });
  const text = parts.filter(Boolean).join('; ');
  return text ? text.slice(0, 500) : undefined;
}

/** The same error with its message read from `detail`, when the body has one; anything else unchanged. */
export function withErrorDetail(error: unknown): unknown {
  if (!(error instanceof UpstreamError)) return error;
  const detail = readErrorDetail(error.body);
  if (detail === undefined) return error;
  return new UpstreamError({
    provider: error.provider,
    status: error.status,
    message: `${error.provider} answered ${error.status}: ${detail}`,
    body: error.body,
    retryable: error.retryable,
    code: error.code,
    retryAfterSeconds: error.retryAfterSeconds,
    cause: error,
  });
}
