import type { CallContext } from '../provider-adapter.js';
import { readUpstreamError, sendRequest, type UpstreamResponse } from './send-request.js';

/**
 * GETs a provider resource (a job's status, a finished file). Resolves with the open response on
 * a 2xx status; rejects with `UpstreamError` on an error status or a transport failure, like
 * `sendRequest`. Redirects are followed (at most 3) only when `followRedirects` is set, and the
 * credential headers are sent to the first URL only: a provider that hands its files out from a
 * storage host must not receive our API key there.
 */
export async function getFromProvider(
  context: Pick<CallContext, 'provider' | 'dispatcher' | 'signal'>,
  url: string,
  credentials: Record<string, string>,
  options: { accept?: string; followRedirects?: boolean } = {},
): Promise<UpstreamResponse> {
  let target = url;
  for (let hop = 0; ; hop += 1) {
    const response = await sendRequest(context, target, {
      method: 'GET',
      headers: { accept: options.accept ?? 'application/json', ...context.provider.headers, ...(hop === 0 ? credentials : {}) },
      returnRedirects: options.followRedirects && hop < 3,
    });
    if (response.statusCode >= 200 && response.statusCode < 300) return response;
    const location = response.headers.location;
    if (typeof location !== 'string') throw await readUpstreamError(context.provider.id, response);
    await response.body.dump().catch(() => undefined);
    target = new URL(location, target).toString();
  }
}
