import type { StreamError } from '../../core/stream-part.js';
import { renderGoogleError } from '../../errors/render-google-error.js';
import type { ResponseMeta } from '../shared/text-call.js';

/**
 * A failure that ends a stream, as Gemini sends it in-band: the same body as an error before the
 * stream (`renderGoogleError`), which `@google/genai` raises as `ApiError` with that status.
 */
export function encodeStreamError(error: StreamError, meta: ResponseMeta): object {
  return renderGoogleError(error.code, error.message, error.status, { request_id: meta.id });
}
