import { Agent, errors as undiciErrors, type Dispatcher, type FormData } from 'undici';
import type { ProviderAuth, ProviderConfig } from '../../config/types.js';
import { signAwsRequest } from '../aws/sign-request.js';
import type { Logger } from 'pino';
import type { CallContext } from '../provider-adapter.js';
import { createProtocolError } from './create-protocol-error.js';
import { createAbortedError, UpstreamError } from '../../errors/upstream-error.js';
import { defaultConnectionLimits } from '../../core/provider-connection-limits.js';
import { ProviderSlots } from './provider-slots.js';

export interface UpstreamResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

/**
 * One keep-alive connection pool per provider, with its connect timeout, and the slots that
 * bound how many calls it carries at once and how many wait (`provider-slots.ts`). The pool's
 * own size matches the slots, so undici's unbounded queue is never used.
 */
export class ProviderDispatcher extends Agent {
  readonly slots: ProviderSlots;

  constructor(provider: ProviderConfig, logger?: Pick<Logger, 'warn' | 'info'>) {
    const limits = provider.connections ?? defaultConnectionLimits;
    super({
      connect: { timeout: provider.timeouts.connectMs },
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 120_000,
      connections: limits.max,
      pipelining: 1,
    });
    this.slots = new ProviderSlots(provider.id, limits, logger);
  }
}

export function createProviderDispatcher(provider: ProviderConfig, logger?: Pick<Logger, 'warn' | 'info'>): ProviderDispatcher {
  return new ProviderDispatcher(provider, logger);
}

export interface ProviderRequest {
  method: 'GET' | 'POST';
  /** Sent as given: the caller merges the provider's configured headers in. */
  headers: Record<string, string>;
  body?: string | FormData;
  /** Hand a 3xx answer back (the caller follows it) instead of rejecting it. */
  returnRedirects?: boolean;
}

/**
 * Sends one request over the provider's pool with its first-byte and between-chunk timeouts.
 * Resolves with the open response on a 2xx status; rejects with `UpstreamError` on an error
 * status (reading the provider's error message) or a transport failure.
 */
export async function sendRequest(
  context: Pick<CallContext, 'provider' | 'dispatcher' | 'signal'>,
  url: string,
  init: ProviderRequest,
): Promise<UpstreamResponse> {
  const { provider } = context;
  // A provider's own dispatcher holds its slots; a bare one (tests) has no bound of ours.
  const slots = context.dispatcher instanceof ProviderDispatcher ? context.dispatcher.slots : undefined;
  // SigV4 covers the method, URL, headers and body: signed here, where they are final (and again on each retry, with its own date).
  const headers = provider.auth.kind === 'aws-sigv4' ? await signAwsHeaders(provider.id, provider.auth, url, init) : init.headers;
  const release = slots ? await slots.acquire(context.signal) : undefined;
  let response: Dispatcher.ResponseData;
  try {
    // Straight to the dispatcher, as undici's `request(url, options)` does after copying the
    // options into a new object with the origin and path: one object of one shape per call.
    const target = new URL(url);
    response = await context.dispatcher.request({
      origin: target.origin,
      path: target.search ? `${target.pathname}${target.search}` : target.pathname,
      method: init.method,
      headers,
      body: init.body,
      // undici takes any EventTarget (api-request.js checks for `addEventListener`); its types name only AbortSignal and EventEmitter.
      signal: context.signal as AbortSignal,
      headersTimeout: provider.timeouts.firstByteMs,
      bodyTimeout: provider.timeouts.idleMs,
    });
  } catch (error) {
    release?.();
    throw toUpstreamError(provider.id, error);
  }
  // The connection is the call's until its body is read to the end or dropped.
  if (release) response.body.once('close', release);
  if (response.statusCode >= 200 && response.statusCode < 300) return response;
  if (init.returnRedirects && response.statusCode >= 300 && response.statusCode < 400) return response;
  throw await readUpstreamError(provider.id, response);
}

async function signAwsHeaders(providerId: string, auth: Extract<ProviderAuth, { kind: 'aws-sigv4' }>, url: string, init: ProviderRequest): Promise<Record<string, string>> {
  if (init.body !== undefined && typeof init.body !== 'string') throw new UpstreamError({ provider: providerId, status: 0, message: `${providerId}: a multipart body cannot be signed for AWS` });
  return { ...init.headers, ...(await signAwsRequest(auth, auth.region, auth.service, { method: init.method, url, headers: init.headers, body: init.body })) };
}

/**
 * POSTs a JSON body to the provider and accepts a JSON or an event-stream answer; see
 * `sendRequest`. The body of a resolved response enforces the between-chunk timeout.
 */
export async function postJson(
  context: CallContext,
  url: string,
  headers: Record<string, string>,
  payload: unknown,
): Promise<UpstreamResponse> {
  return sendRequest(context, url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...context.provider.headers, ...headers },
    body: JSON.stringify(payload),
  });
}

/** Reads an error response into an `UpstreamError`, taking the message from the usual `error.message` field. */
export async function readUpstreamError(providerId: string, response: UpstreamResponse): Promise<UpstreamError> {
  let text = '';
  try {
    text = await response.body.text();
  } catch {
    // The body is only for the message; a broken one still leaves the status to act on.
  }
  // AWS names the error in a header (`ThrottlingException:http://…`), its body says only `{message}`.
  const header = response.headers['x-amzn-errortype'];
  const awsType = typeof header === 'string' && header !== '' ? header.split(':')[0] : undefined;
  const named = awsType ? ` (${awsType})` : '';
  return new UpstreamError({
    provider: providerId,
    status: response.statusCode,
    message: `${providerId} answered ${response.statusCode}${named}: ${extractErrorMessage(text)}`,
    body: text,
    retryAfterSeconds: readRetryAfterSeconds(response.headers) ?? (awsType === 'ThrottlingException' ? awsThrottlingRetryAfterSeconds : undefined),
  });
}

/**
 * Bedrock throttles without a Retry-After; AWS's own SDKs wait before a throttled call's first
 * retry from a base of 500 ms (`THROTTLING_RETRY_DELAY_BASE` in @smithy/util-retry, doubled per
 * attempt, jittered). A client told the whole second retries no sooner than AWS's clients would.
 */
export const awsThrottlingRetryAfterSeconds = 1;

/**
 * When the provider says to retry: Azure's `retry-after-ms` or `x-ms-retry-after-ms`
 * (milliseconds; Azure sends them beside `retry-after`, and on some APIs without it), which the
 * OpenAI SDK also reads first, else `retry-after` in seconds.
 */
export function readRetryAfterSeconds(headers: UpstreamResponse['headers']): number | undefined {
  for (const name of ['retry-after-ms', 'x-ms-retry-after-ms']) {
    const milliseconds = Number(headers[name] ?? Number.NaN);
    if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds / 1000;
  }
  const seconds = Number(headers['retry-after'] ?? Number.NaN);
  return Number.isFinite(seconds) ? seconds : undefined;
}

/**
 * Reads a 2xx JSON answer that must be an object. Anything else (an HTML page from a proxy, a
 * cut body) is a retryable protocol error; a transport failure while reading, an `UpstreamError`.
 */
export async function readJsonObject<T extends object>(providerId: string, response: UpstreamResponse): Promise<T> {
  let text: string;
  try {
    text = await response.body.text();
  } catch (error) {
    throw toUpstreamError(providerId, error);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as T;
  } catch {
    // reported below
  }
  throw createProtocolError(providerId, 'sent a body that is not a JSON object', text);
}

/** Reads `error.message` (OpenAI, Anthropic, Gemini all use it) or falls back to the raw text. */
export function extractErrorMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown }; message?: unknown };
    const message = parsed?.error?.message ?? parsed?.message;
    if (typeof message === 'string' && message) return message.slice(0, 500);
  } catch {
    // not JSON
  }
  return text.slice(0, 500) || 'no error message';
}

/** Maps transport failures (connect, timeouts, aborts) onto `UpstreamError`. */
export function toUpstreamError(providerId: string, error: unknown): UpstreamError {
  if (error instanceof UpstreamError) return error;
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
    return new UpstreamError({ provider: providerId, status: 0, code: 'upstream_timeout', message: `${providerId} timed out`, cause: error });
  }
  if (error instanceof undiciErrors.ConnectTimeoutError) {
    return new UpstreamError({ provider: providerId, status: 0, code: 'upstream_timeout', message: `${providerId} connect timed out`, cause: error });
  }
  if (isAbort(error)) return createAbortedError(providerId, error);
  const message = error instanceof Error ? error.message : String(error);
  return new UpstreamError({ provider: providerId, status: 0, message: `${providerId} unreachable: ${message}`, cause: error });
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || (error as { code?: string }).code === 'UND_ERR_ABORTED');
}
