/**
 * Google's error status names (`google.rpc.Code`) by HTTP status, as the Gemini API answers them.
 * https://cloud.google.com/apis/design/errors#handling_errors · https://ai.google.dev/gemini-api/docs/troubleshooting
 */
const statusNames: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  // Google has no payment status; an account that cannot pay is a precondition that fails.
  402: 'FAILED_PRECONDITION',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'UNIMPLEMENTED',
  408: 'DEADLINE_EXCEEDED',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/**
 * A code whose answer a retry cannot change takes Google's name for that answer rather than its
 * status's, as the other styles give it their client-mistake type (`client-error-type.ts`): a model
 * the gateway has no route for is a 503 by the spec, which Gemini clients retry for minutes (Gemini
 * CLI: ten attempts with backoff), while Google answers a model it does not serve with 404
 * `NOT_FOUND`, which they take as final. The HTTP status stays the spec's.
 */
const googleCodeOf: Partial<Record<string, number>> = { no_available_provider: 404 };

export function googleStatusName(status: number): string {
  return statusNames[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
}

/**
 * The Gemini style's error body: Google's `{error: {code, message, status}}`, where `code` is the
 * HTTP status (but for `googleCodeOf`) and `status` its name, so that `@google/genai` raises `ApiError` with that status and
 * Gemini CLI reads it as it reads Google's. Google's names `code` and `status` are the spec
 * envelope's with other meanings, so the envelope's machine code travels as Google carries a
 * reason: in a `google.rpc.ErrorInfo` detail (`reason`, `domain: "switchyard"`, with the
 * metadata); `error.metadata` (with `request_id`) is there as in every style.
 */
export function renderGoogleError(code: string, message: string, status: number, metadata: Record<string, unknown>): Record<string, unknown> {
  const info: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata)) if (value !== undefined && value !== null) info[key] = typeof value === 'string' ? value : JSON.stringify(value);
  const googleCode = googleCodeOf[code] ?? status;
  return {
    error: {
      code: googleCode,
      message,
      status: googleStatusName(googleCode),
      metadata,
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: code, domain: 'switchyard', metadata: info }],
    },
  };
}
