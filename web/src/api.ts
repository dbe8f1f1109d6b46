/** An error answer of the gateway (its envelope), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId?: string,
    /** The envelope's `metadata` (e.g. `reason` of a refused sign-in). */
    readonly metadata: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * What a request is made with: a pasted key or admin token (sent as a bearer header, never as a
 * cookie), or the person's cookie session acting for one of their accounts (§7: the account in
 * `x-switchyard-account`, and on a change the session's CSRF token in `x-csrf-token`).
 */
export type Credential = string | AccountSession;

export interface AccountSession {
  kind: 'session';
  accountId: string;
  csrfToken: string;
}

const readOnlyMethods = new Set(['GET', 'HEAD']);

/** A 401 on a cookie session means it ended (signed out elsewhere, expired): the app listens for this. */
export const sessionEndedEvent = 'switchyard:session-ended';

function headersFor(credential: Credential, method: string, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = hasBody ? { 'content-type': 'application/json' } : {};
  if (typeof credential === 'string') headers.authorization = `Bearer ${credential}`;
  else {
    // No account yet (accepting an invite acts for the person, not for an account).
    if (credential.accountId !== '') headers['x-switchyard-account'] = credential.accountId;
    if (!readOnlyMethods.has(method)) headers['x-csrf-token'] = credential.csrfToken;
  }
  return headers;
}

/** Every number on the page comes through here, from the public API, with the key in a header or the session cookie. */
export async function callApi<T>(credential: Credential, method: string, path: string, body?: unknown): Promise<T> {
  const { json } = await request(credential, method, path, body);
  return json as T;
}

/** The same, with the answer's headers (the session's CSRF token may come in one). */
export async function request(credential: Credential | null, method: string, path: string, body?: unknown): Promise<{ json: any; headers: Headers; status: number }> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: credential === null ? (body === undefined ? {} : { 'content-type': 'application/json' }) : headersFor(credential, method, body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      // A key never travels with the cookie: a key-mode request must not act as whoever is signed in.
      credentials: typeof credential === 'string' ? 'omit' : 'same-origin',
    });
  } catch {
    throw new ApiError(0, 'network_error', 'The gateway could not be reached. Check the connection and try again.');
  }
  const text = await response.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!response.ok) {
    const error = json?.error;
    if (response.status === 401 && credential !== null && typeof credential !== 'string') window.dispatchEvent(new Event(sessionEndedEvent));
    throw new ApiError(response.status, String(error?.code ?? 'http_error'), String(error?.message ?? `HTTP ${response.status}`), error?.metadata?.request_id, error?.metadata ?? {});
  }
  return { json, headers: response.headers, status: response.status };
}

/** `?a=1&b=2` from the defined, non-empty values. */
export function query(values: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}
