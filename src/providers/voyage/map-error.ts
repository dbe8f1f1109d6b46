import { withErrorDetail } from '../shared/read-error-detail.js';

/**
 * Voyage answers a 4xx as `{"detail": "..."}` (the error schema of its API reference,
 * https://docs.voyageai.com/reference/embeddings-api, pointing to
 * https://docs.voyageai.com/docs/error-codes), which the shared reader does not read: the message
 * is taken from `detail`. The status keeps its meaning (429 and 5xx retry, other 4xx do not).
 */
export function mapHttpError(error: unknown): unknown {
  return withErrorDetail(error);
}
