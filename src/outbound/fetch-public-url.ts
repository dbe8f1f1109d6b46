import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';
import { isPublicAddress } from './check-public-address.js';
import { toAbortSignal, type CancelSignal } from '../core/cancel-signal.js';

export interface FetchPublicUrlOptions {
  /** Largest body accepted, in bytes (checked on Content-Length and while reading). */
  maxBytes: number;
  /** Whole fetch, redirects included. */
  timeoutMs: number;
  /** Default 3. */
  maxRedirects?: number;
  /** Accepted Content-Type prefixes, e.g. `['image/']`; any type when absent. */
  contentTypes?: string[];
  signal?: CancelSignal;
  /** Resolves a host name to its addresses; `dns.lookup` (all addresses) by default. Tests inject one. */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** The address policy; `isPublicAddress` by default. Tests widen it to reach a local server. */
  isAllowedAddress?: (address: string) => boolean;
  /** Extra trusted CA certificates (tests only). */
  ca?: string | Buffer;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface FetchedFile {
  bytes: Buffer;
  /** The Content-Type without parameters, lower case; '' when absent. */
  contentType: string;
  /** The URL the bytes came from, after redirects. */
  url: string;
}

export type FetchFailure = 'invalid_url' | 'scheme' | 'address' | 'dns' | 'redirect' | 'status' | 'size' | 'content_type' | 'timeout' | 'network';

/** Why a fetch was refused or failed; `message` is safe to show to the client (no resolved addresses). */
export class FetchRefusedError extends Error {
  constructor(
    readonly reason: FetchFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FetchRefusedError';
  }
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches a URL given by a client without letting it reach anything but the public internet
 * (SSRF): https only; the host is resolved here and every address checked; the connection is
 * pinned to the checked address, so a second DNS answer (rebinding) is never used; every redirect
 * hop is checked again; size and time are bounded.
 * https://cheatsheetseries.owasp.org/cheatsheets/Server_Side_Request_Forgery_Prevention_Cheat_Sheet.html
 */
export async function fetchPublicUrl(url: string, options: FetchPublicUrlOptions): Promise<FetchedFile> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([toAbortSignal(options.signal), deadline]) : deadline;
  const maxRedirects = options.maxRedirects ?? 3;
  let current = parseTarget(url);
  for (let hop = 0; ; hop += 1) {
    const pinned = await resolvePinned(current, options);
    const agent = new Agent({ connect: { lookup: pinnedLookup(pinned), ca: options.ca, timeout: options.timeoutMs }, connections: 1 });
    try {
      const response = await send(current, agent, signal, options.timeoutMs, deadline);
      if (redirectStatuses.has(response.statusCode)) {
        await response.body.dump().catch(() => undefined);
        if (hop >= maxRedirects) throw new FetchRefusedError('redirect', `too many redirects (more than ${maxRedirects})`);
        const location = response.headers.location;
        if (typeof location !== 'string' || location === '') throw new FetchRefusedError('redirect', 'a redirect without a Location');
        current = parseTarget(new URL(location, current).toString());
        continue;
      }
      return await readBody(response, current, options, signal, deadline);
    } finally {
      agent.close().catch(() => undefined);
    }
  }
}

function parseTarget(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new FetchRefusedError('invalid_url', 'is not a valid URL');
  }
  if (url.protocol !== 'https:') throw new FetchRefusedError('scheme', `must use https (got ${url.protocol.replace(/:$/, '')})`);
  if (url.username || url.password) throw new FetchRefusedError('invalid_url', 'must not carry credentials');
  return url;
}

/** The address to connect to: every address of the host must be allowed, and the first is used. */
export async function resolvePinned(url: URL, options: FetchPublicUrlOptions): Promise<ResolvedAddress> {
  const allowed = options.isAllowedAddress ?? isPublicAddress;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const literal = isIP(host);
  let addresses: ResolvedAddress[];
  if (literal !== 0) {
    addresses = [{ address: host, family: literal as 4 | 6 }];
  } else {
    try {
      addresses = await (options.resolve ?? resolveAll)(host);
    } catch (error) {
      throw new FetchRefusedError('dns', `host '${host}' could not be resolved`, { cause: error });
    }
    if (addresses.length === 0) throw new FetchRefusedError('dns', `host '${host}' has no address`);
  }
  // Refusing when any address is special (not just the first) leaves no mixed answer to exploit.
  if (addresses.some((entry) => !allowed(entry.address))) {
    throw new FetchRefusedError('address', `host '${host}' resolves to a private, loopback, link-local or reserved address`);
  }
  return addresses[0];
}

function resolveAll(hostname: string): Promise<ResolvedAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses: LookupAddress[]) => {
      if (error) reject(error);
      else resolve(addresses.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 })));
    });
  });
}

/** A `lookup` for net/tls that answers only the checked address, whatever the host name. */
export function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  }) as LookupFunction;
}

async function send(url: URL, agent: Dispatcher, signal: AbortSignal, timeoutMs: number, deadline: AbortSignal): Promise<Dispatcher.ResponseData> {
  try {
    return await request(url, {
      method: 'GET',
      headers: { accept: 'image/*,*/*;q=0.5', 'user-agent': 'switchyard-media-fetch' },
      dispatcher: agent,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  } catch (error) {
    throw transportFailure(error, deadline);
  }
}

async function readBody(response: Dispatcher.ResponseData, url: URL, options: FetchPublicUrlOptions, signal: AbortSignal, deadline: AbortSignal): Promise<FetchedFile> {
  if (response.statusCode < 200 || response.statusCode >= 300) {
    await response.body.dump().catch(() => undefined);
    throw new FetchRefusedError('status', `answered HTTP ${response.statusCode}`);
  }
  const contentType = String(response.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (options.contentTypes && !options.contentTypes.some((prefix) => contentType.startsWith(prefix))) {
    discard(response.body);
    throw new FetchRefusedError('content_type', `has content type '${contentType || 'none'}', expected ${options.contentTypes.join(' or ')}`);
  }
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    discard(response.body);
    throw new FetchRefusedError('size', `is larger than ${options.maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > options.maxBytes) {
        discard(response.body);
        throw new FetchRefusedError('size', `is larger than ${options.maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof FetchRefusedError) throw error;
    throw transportFailure(error, deadline);
  }
  if (signal.aborted) throw transportFailure(signal.reason, deadline);
  return { bytes: Buffer.concat(chunks), contentType, url: url.toString() };
}

function transportFailure(error: unknown, deadline: AbortSignal): FetchRefusedError {
  if (error instanceof FetchRefusedError) return error;
  const code = (error as { code?: string })?.code ?? '';
  if (deadline.aborted || code.includes('TIMEOUT') || (error as Error)?.name === 'TimeoutError') {
    return new FetchRefusedError('timeout', 'did not answer in time', { cause: error });
  }
  return new FetchRefusedError('network', 'could not be reached', { cause: error });
}

/** Drops a body we will not read; the abort it causes is expected, not an error to surface. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}
