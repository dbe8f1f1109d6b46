import type { ProviderConfig } from '../../config/types.js';
import { UpstreamError } from '../../errors/upstream-error.js';
import type { CallContext } from '../provider-adapter.js';
import { authHeaders } from '../shared/auth-headers.js';
import { readJsonObject } from '../shared/send-request.js';
import { sendUpstream } from '../shared/send-upstream.js';

/** A Cohere v2 operation (`rerank`, `embed`) under the provider's base URL (https://api.cohere.com). */
export function cohereOperationUrl(provider: ProviderConfig, operation: 'rerank' | 'embed'): string {
  return `${provider.baseUrl.replace(/\/+$/, '')}/v2/${operation}`;
}

/**
 * POSTs a JSON body to a Cohere v2 operation with the bearer key and reads the JSON answer.
 * Cohere's errors are `{"message": …}` (read by the shared `readUpstreamError`); its status 498
 * ("invalid token", https://docs.cohere.com/reference/errors) is an authentication failure and
 * is mapped to 401, so the gateway treats it as it treats every provider's refused key.
 */
export async function postCohere<T extends object>(context: CallContext, operation: 'rerank' | 'embed', body: unknown): Promise<T> {
  const { provider } = context;
  try {
    const response = await sendUpstream(context, cohereOperationUrl(provider, operation), { method: 'POST', json: body, headers: await authHeaders(provider.auth) });
    return await readJsonObject<T>(provider.id, response);
  } catch (error) {
    throw mapCohereError(error);
  }
}

export function mapCohereError(error: unknown): unknown {
  if (!(error instanceof UpstreamError) || error.status !== 498) return error;
  return new UpstreamError({ provider: error.provider, status: 401, message: error.message, body: error.body, cause: error });
}
