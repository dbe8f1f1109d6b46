import { Agent, request } from 'undici';
import { FetchRefusedError, pinnedLookup, resolvePinned, type FetchPublicUrlOptions, type ResolvedAddress } from './fetch-public-url.js';

export interface PostPublicUrlOptions extends Pick<FetchPublicUrlOptions, 'resolve' | 'isAllowedAddress'> {
  timeoutMs: number;
  /** Also http, and any address (the operator's `allow_private_urls`: on-premises receivers, tests). */
  allowPrivate?: boolean;
}

/**
 * Checks a URL the gateway will POST to on a user's behalf (an alert webhook) by the rule of
 * `fetchPublicUrl`: https, no credentials, every address of the host public. Answers the address
 * to connect to, so the POST cannot be steered elsewhere by a second DNS answer.
 */
export async function checkPostTarget(text: string, options: Omit<PostPublicUrlOptions, 'timeoutMs'>): Promise<{ url: URL; pinned: ResolvedAddress }> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new FetchRefusedError('invalid_url', 'is not a valid URL');
  }
  const schemes = options.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw new FetchRefusedError('scheme', `must use ${schemes.map((scheme) => scheme.slice(0, -1)).join(' or ')} (got ${url.protocol.replace(/:$/, '')})`);
  if (url.username || url.password) throw new FetchRefusedError('invalid_url', 'must not carry credentials');
  const pinned = await resolvePinned(url, { ...options, isAllowedAddress: options.allowPrivate ? () => true : options.isAllowedAddress, maxBytes: 0, timeoutMs: 0 });
  return { url, pinned };
}

/**
 * POSTs a body to a checked URL and answers the status; redirects are not followed (a receiver
 * that moved answers 3xx, which the caller treats as a failure). The answer's body is discarded.
 */
export async function postPublicUrl(text: string, body: string, headers: Record<string, string>, options: PostPublicUrlOptions): Promise<number> {
  const { url, pinned } = await checkPostTarget(text, options);
  const agent = new Agent({ connect: { lookup: pinnedLookup(pinned), timeout: options.timeoutMs }, connections: 1 });
  try {
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'switchyard-alerts', ...headers },
      body,
      dispatcher: agent,
      signal: AbortSignal.timeout(options.timeoutMs),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    await response.body.dump().catch(() => undefined);
    return response.statusCode;
  } catch (error) {
    throw new FetchRefusedError('network', `could not be reached (${(error as { code?: string }).code ?? (error as Error).message})`, { cause: error });
  } finally {
    agent.close().catch(() => undefined);
  }
}
