import { createHmac, createPublicKey, randomBytes, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './handle-control-request.js';
import { readBody } from './read-body.js';

/**
 * Google's OAuth token endpoint for service accounts, as Vertex AI's callers meet it
 * (https://developers.google.com/identity/protocols/oauth2/service-account#httprest): a JWT
 * assertion signed RS256 with the account's key is exchanged for a bearer token that lives
 * `expires_in` seconds. Tokens are `ya29.sim.<expiry ms>.<HMAC>`, so the Vertex routes check them
 * (signature and expiry) without shared state: an expired or forged token is refused with 401.
 */
const secret = randomBytes(32);
const jwtBearerGrant = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export interface GoogleTokenState {
  /** The service account's public key (PEM); without it every assertion is refused. */
  publicKey?: KeyObject;
  lifetimeSeconds: number;
  issued: number;
}

export function createGoogleTokenState(publicKeyPem: string | undefined, lifetimeSeconds = 3600): GoogleTokenState {
  return { publicKey: publicKeyPem ? createPublicKey(publicKeyPem) : undefined, lifetimeSeconds, issued: 0 };
}

/** `POST /google/token` (form body): the assertion checked, then a token issued and counted. */
export async function handleGoogleToken(request: IncomingMessage, response: ServerResponse, state: GoogleTokenState): Promise<void> {
  const body = new URLSearchParams((await readBody(request)) ?? '');
  const refusal = checkAssertion(body, state.publicKey);
  if (refusal) return sendJson(response, 400, { error: 'invalid_grant', error_description: refusal });
  state.issued++;
  const expiresAt = Date.now() + state.lifetimeSeconds * 1000;
  sendJson(response, 200, { access_token: `ya29.sim.${expiresAt}.${sign(String(expiresAt))}`, expires_in: state.lifetimeSeconds, token_type: 'Bearer' });
}

/** Whether the request carries a bearer token this simulator issued that has not expired. */
export function hasValidGoogleToken(headers: IncomingHttpHeaders): boolean {
  const match = /^Bearer ya29\.sim\.(\d+)\.([\w-]+)$/.exec(headers.authorization ?? '');
  if (!match) return false;
  const expected = Buffer.from(sign(match[1]!));
  const given = Buffer.from(match[2]!);
  return given.length === expected.length && timingSafeEqual(given, expected) && Number(match[1]) > Date.now();
}

/** Google's answer to a missing, forged or expired token. */
export const googleUnauthenticated = {
  status: 401,
  body: {
    error: {
      code: 401,
      message: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      status: 'UNAUTHENTICATED',
    },
  },
};

function sign(value: string): string {
  return createHmac('sha256', secret).update(value).digest('base64url');
}

function checkAssertion(body: URLSearchParams, publicKey: KeyObject | undefined): string | undefined {
  if (body.get('grant_type') !== jwtBearerGrant) return 'Invalid grant_type';
  const parts = (body.get('assertion') ?? '').split('.');
  if (parts.length !== 3) return 'Invalid JWT: not three parts';
  const [header, payload, signature] = parts as [string, string, string];
  if (!publicKey || !verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'))) return 'Invalid JWT Signature.';
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return 'Invalid JWT: payload is not JSON';
  }
  const now = Date.now() / 1000;
  if (typeof claims.iss !== 'string' || typeof claims.scope !== 'string') return 'Invalid JWT: iss and scope are required';
  if (typeof claims.exp !== 'number' || claims.exp < now) return 'Invalid JWT: Token must be a short-lived token and in a reasonable timeframe';
  return undefined;
}
