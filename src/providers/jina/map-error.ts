import { withErrorDetail } from '../shared/read-error-detail.js';

/**
 * Jina's API is a FastAPI service (https://api.jina.ai/openapi.json: every operation lists the
 * "422 Validation Error" whose `detail` names the field; its error table lists 400
 * INPUT_MODEL_NOT_FOUND, 401 AUTH_INVALID_API_KEY, 403 AUTHZ_INSUFFICIENT_BALANCE), so the
 * message is taken from `detail` when the body has one. The status keeps its meaning.
 */
export function mapHttpError(error: unknown): unknown {
  return withErrorDetail(error);
}
