import { request, type Dispatcher } from 'undici';
import type { CallContext } from '../provider-adapter.js';
import { readUpstreamError, toUpstreamError, type UpstreamResponse } from './send-request.js';

/**
 * GETs a provider resource (a job's status, a finished file). Resolves with the open response on
 * a 2xx status; rejects with `UpstreamError` on an error status or a transport failure, like
 * `postJson`. Redirects are followed (at most 3) only when `followRedirects` is set, and the
 * credential headers are sent to the first URL only: a provider that hands its files out from a
 * storage host must not receive our API key there.
 */
export async function getFromProvider(
  context: Pick<CallContext, 'provider' | 'dispatcher' | 'signal'>,
  url: string,
  credentials: Record<string, string>,
  options: { accept?: string; followRedirects?: boolean } = {},
): Promise<UpstreamResponse> {
  const { provider } = context;
  let target = url;
  for (let hop = 0; ; hop += 1) {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(target, {
        method: 'GET',
        headers: { accept: options.accept ?? 'application/json', ...provider.headers, ...(hop === 0 ? credentials : {}) },
        dispatcher: context.dispatcher,
        signal: context.signal,
        headersTimeout: provider.timeouts.firstByteMs,
        bodyTimeout: provider.timeouts.idleMs,
      });
    } catch (error) {
      throw toUpstreamError(provider.id, error);
    }
    const location = response.headers.location;
    if (options.followRedirects && response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string' && hop < 3) {
      await response.body.dump().catch(() => undefined);
      target = new URL(location, target).toString();
      continue;
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return response;
    throw await readUpstreamError(provider.id, response);
  }
}
