import { createHash } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import type { CustomFetch } from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OidcProviderConfig } from '../../src/config/oidc-provider-config.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { createOidcSignIn, type OidcSignIn } from '../../src/people/oidc/create-oidc-sign-in.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/start-oidc-provider.js';

// The OpenID Connect client against a real OpenID Provider (oidc-provider) over real HTTP: every
// check below is made by openid-client against tokens the provider really signed.

const redirectUri = 'http://127.0.0.1:9/auth/oidc/test/callback';
const otherRedirectUri = 'http://127.0.0.1:9/other/callback';
const accounts = [
  { sub: 'alice', email: 'alice@example.com', email_verified: true, name: 'Alice Liddell' },
  { sub: 'bob', email: 'bob@example.com', email_verified: false, name: 'Bob' },
];
const clients = [
  { client_id: 'switchyard', client_secret: 'gateway-secret', redirect_uris: [redirectUri] },
  { client_id: 'other-app', client_secret: 'other-secret', redirect_uris: [otherRedirectUri] },
];

let idp: TestOidcProvider;
let signIn: OidcSignIn;

function providerConfig(overrides: Partial<OidcProviderConfig> = {}): OidcProviderConfig {
  return { id: 'test', name: 'Test IdP', issuer: idp.issuer, client_id: 'switchyard', client_secret: 'gateway-secret', ...overrides };
}

async function refusal(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

/** Passes every request to the real provider, except the token endpoint's answer, which `rewrite` may replace. */
function tokenResponseRewriter(rewrite: (body: Record<string, unknown>) => Record<string, unknown>): CustomFetch {
  return async (url, options) => {
    const response = await fetch(url, options as RequestInit);
    if (!url.endsWith('/token') || response.status !== 200) return response;
    const body = rewrite((await response.json()) as Record<string, unknown>);
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

beforeAll(async () => {
  idp = await startOidcProvider({ clients, accounts });
  signIn = createOidcSignIn({ providers: [providerConfig()] });
});

afterAll(async () => {
  await idp?.close();
});

describe('OpenID Connect sign-in against a real provider', () => {
  it('signs in with PKCE S256, a fresh state and nonce, and returns the verified email and subject', async () => {
    const start = await signIn.beginSignIn('test', { redirectUri });
    const url = new URL(start.authorizationUrl);
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toBe(createHash('sha256').update(start.codeVerifier).digest('base64url'));
    expect(url.searchParams.get('state')).toBe(start.state);
    expect(url.searchParams.get('nonce')).toBe(start.nonce);
    expect(url.searchParams.get('redirect_uri')).toBe(redirectUri);
    const second = await signIn.beginSignIn('test', { redirectUri });
    expect(new Set([start.state, second.state]).size).toBe(2);
    expect(new Set([start.nonce, second.nonce]).size).toBe(2);
    expect(new Set([start.codeVerifier, second.codeVerifier]).size).toBe(2);

    const callbackUrl = await idp.completeAuthorization(start.authorizationUrl, { login: 'alice' });
    expect(new URL(callbackUrl).searchParams.get('code')).toBeTruthy();
    const identity = await signIn.finishSignIn('test', { callbackUrl, redirectUri, expected: start });
    expect(identity).toEqual({ issuer: idp.issuer, subject: 'alice', email: 'alice@example.com', emailVerified: true, name: 'Alice Liddell' });
  });

  it('fetches email and name from userinfo when the ID token carries only the subject', async () => {
    const requested: string[] = [];
    const client = createOidcSignIn({
      providers: [providerConfig()],
      fetch: tokenResponseRewriter((body) => {
        const claims = JSON.parse(Buffer.from(String(body.id_token).split('.')[1], 'base64url').toString()) as Record<string, unknown>;
        requested.push(...Object.keys(claims));
        return body;
      }),
    });
    const start = await client.beginSignIn('test', { redirectUri });
    const callbackUrl = await idp.completeAuthorization(start.authorizationUrl, { login: 'alice' });
    const identity = await client.finishSignIn('test', { callbackUrl, redirectUri, expected: start });
    expect(requested).toContain('sub');
    expect(requested).not.toContain('email');
    expect(identity).toMatchObject({ subject: 'alice', email: 'alice@example.com', emailVerified: true, name: 'Alice Liddell' });
  });

  it('reads email and name from the ID token when the provider puts them there', async () => {
    const googleLike = await startOidcProvider({ clients, accounts, claimsInIdToken: true, autoLogin: { login: 'alice' } });
    try {
      const userinfoCalls: string[] = [];
      const client = createOidcSignIn({
        providers: [providerConfig({ issuer: googleLike.issuer })],
        fetch: (url, options) => {
          if (url.endsWith('/me')) userinfoCalls.push(url);
          return fetch(url, options as RequestInit);
        },
      });
      const start = await client.beginSignIn('test', { redirectUri });
      const callbackUrl = await googleLike.completeAuthorization(start.authorizationUrl);
      const identity = await client.finishSignIn('test', { callbackUrl, redirectUri, expected: start });
      expect(identity).toMatchObject({ issuer: googleLike.issuer, subject: 'alice', email: 'alice@example.com', emailVerified: true, name: 'Alice Liddell' });
      expect(userinfoCalls).toEqual([]);
    } finally {
      await googleLike.close();
    }
  });

  it('reports email_verified: false as not verified', async () => {
    const start = await signIn.beginSignIn('test', { redirectUri });
    const callbackUrl = await idp.completeAuthorization(start.authorizationUrl, { login: 'bob' });
    const identity = await signIn.finishSignIn('test', { callbackUrl, redirectUri, expected: start });
    expect(identity.subject).toBe('bob');
    expect(identity.email).toBe('bob@example.com');
    expect(identity.emailVerified).toBe(false);
  });

  it('refuses a callback whose state is not the one this sign-in stored', async () => {
    const start = await signIn.beginSignIn('test', { redirectUri });
    const other = await signIn.beginSignIn('test', { redirectUri });
    const callbackUrl = await idp.completeAuthorization(start.authorizationUrl, { login: 'alice' });
    const error = await refusal(signIn.finishSignIn('test', { callbackUrl, redirectUri, expected: { ...start, state: other.state } }));
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_request');
    expect(error.metadata).toMatchObject({ reason: 'state_mismatch', provider: 'test' });
    expect(error.message).toMatch(/^Sign-in with Test IdP failed: .*"state"/);
  });

  it('refuses an ID token whose nonce is not the one this sign-in stored', async () => {
    const start = await signIn.beginSignIn('test', { redirectUri });
    const other = await signIn.beginSignIn('test', { redirectUri });
    const callbackUrl = await idp.completeAuthorization(start.authorizationUrl, { login: 'alice' });
    const error = await refusal(signIn.finishSignIn('test', { callbackUrl, redirectUri, expected: { ...start, nonce: other.nonce } }));
    expect(error.status).toBe(400);
    expect(error.metadata.reason).toBe('nonce_mismatch');
  });

  it('refuses a code used a second time (the provider refuses it)', async () => {
    const start = await signIn.beginSignIn('test', { redirectUri });
    const callbackUrl = await idp.completeAuthorization(start.authorizationUrl, { login: 'alice' });
    const first = await signIn.finishSignIn('test', { callbackUrl, redirectUri, expected: start });
    expect(first.subject).toBe('alice');
    const error = await refusal(signIn.finishSignIn('test', { callbackUrl, redirectUri, expected: start }));
    expect(error.status).toBe(400);
    expect(error.metadata.reason).toBe('code_rejected');
    expect(error.message).toMatch(/sign in again/);
  });

  it('refuses a code sent with another verifier than the one its challenge was made from', async () => {
    const start = await signIn.beginSignIn('test', { redirectUri });
    const other = await signIn.beginSignIn('test', { redirectUri });
    const callbackUrl = await idp.completeAuthorization(start.authorizationUrl, { login: 'alice' });
    const error = await refusal(signIn.finishSignIn('test', { callbackUrl, redirectUri, expected: { ...start, codeVerifier: other.codeVerifier } }));
    expect(error.status).toBe(400);
    expect(error.metadata.reason).toBe('code_rejected');
  });

  it('turns a refusal at the provider (error=access_denied) into a clear 400', async () => {
    const start = await signIn.beginSignIn('test', { redirectUri });
    const callbackUrl = await idp.completeAuthorization(start.authorizationUrl, { deny: true });
    expect(new URL(callbackUrl).searchParams.get('error')).toBe('access_denied');
    const error = await refusal(signIn.finishSignIn('test', { callbackUrl, redirectUri, expected: start }));
    expect(error.status).toBe(400);
    expect(error.metadata).toMatchObject({ reason: 'provider_refused', provider_error: 'access_denied' });
    expect(error.message).toContain('access_denied');
  });

  it("answers 502 when the provider refuses the gateway's client secret (the operator's mistake, not the person's)", async () => {
    const misconfigured = createOidcSignIn({ providers: [providerConfig({ client_secret: 'not-the-secret' })] });
    const start = await misconfigured.beginSignIn('test', { redirectUri });
    const callbackUrl = await idp.completeAuthorization(start.authorizationUrl, { login: 'alice' });
    const error = await refusal(misconfigured.finishSignIn('test', { callbackUrl, redirectUri, expected: start }));
    expect(error.status).toBe(502);
    expect(error.code).toBe('upstream_error');
    expect(error.metadata.reason).toBe('client_rejected');
    expect(error.message).not.toContain('not-the-secret');
  });

  it('refuses a genuine ID token made for another client (wrong audience)', async () => {
    // The other client's own sign-in, whose token answer (signed by the provider, aud other-app) is kept.
    let otherTokens: Record<string, unknown> | undefined;
    const otherClient = createOidcSignIn({
      providers: [providerConfig({ client_id: 'other-app', client_secret: 'other-secret' })],
      fetch: tokenResponseRewriter((body) => (otherTokens = body)),
    });
    const otherStart = await otherClient.beginSignIn('test', { redirectUri: otherRedirectUri });
    const otherCallback = await idp.completeAuthorization(otherStart.authorizationUrl, { login: 'alice' });
    expect((await otherClient.finishSignIn('test', { callbackUrl: otherCallback, redirectUri: otherRedirectUri, expected: otherStart })).subject).toBe('alice');

    // The gateway's token request answered with the other client's tokens, nonce and all.
    const substituted = createOidcSignIn({ providers: [providerConfig()], fetch: tokenResponseRewriter(() => otherTokens!) });
    const start = await substituted.beginSignIn('test', { redirectUri });
    const callbackUrl = await idp.completeAuthorization(start.authorizationUrl, { login: 'alice' });
    const error = await refusal(substituted.finishSignIn('test', { callbackUrl, redirectUri, expected: { ...start, nonce: otherStart.nonce } }));
    expect(error.status).toBe(400);
    expect(error.metadata.reason).toBe('audience_mismatch');
  });

  it('refuses an ID token whose signature does not verify against the provider keys', async () => {
    const tampered = createOidcSignIn({
      providers: [providerConfig()],
      fetch: tokenResponseRewriter((body) => {
        const [header, payload, signature] = String(body.id_token).split('.');
        const flipped = Buffer.from(signature, 'base64url');
        flipped[0] ^= 1;
        return { ...body, id_token: `${header}.${payload}.${flipped.toString('base64url')}` };
      }),
    });
    const start = await tampered.beginSignIn('test', { redirectUri });
    const callbackUrl = await idp.completeAuthorization(start.authorizationUrl, { login: 'alice' });
    const error = await refusal(tampered.finishSignIn('test', { callbackUrl, redirectUri, expected: start }));
    expect(error.status).toBe(400);
    expect(error.metadata.reason).toBe('bad_signature');
  });

  it('answers 503 for an issuer nobody listens on, and 404 for an unknown provider id', async () => {
    const port = await closedPort();
    const client = createOidcSignIn({ providers: [providerConfig({ issuer: `http://127.0.0.1:${port}` })] });
    const error = await refusal(client.beginSignIn('test', { redirectUri }));
    expect(error.status).toBe(503);
    expect(error.code).toBe('service_unavailable');
    expect(error.metadata.reason).toBe('provider_unreachable');
    expect(error.message).toMatch(/^Sign-in with Test IdP failed: the provider could not be reached/);
    const finish = await refusal(
      client.finishSignIn('test', { callbackUrl: `${redirectUri}?code=x&state=y`, redirectUri, expected: { state: 'y', nonce: 'n', codeVerifier: 'v'.repeat(43) } }),
    );
    expect(finish.status).toBe(503);
    expect((await refusal(signIn.beginSignIn('nope', { redirectUri }))).status).toBe(404);
  });

  it('caches discovery, and tries it again after a failure', async () => {
    const discoveries: string[] = [];
    let failNext = true;
    const client = createOidcSignIn({
      providers: [providerConfig()],
      fetch: async (url, options) => {
        if (url.includes('/.well-known/openid-configuration')) {
          discoveries.push(url);
          if (failNext) {
            failNext = false;
            throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
          }
        }
        return fetch(url, options as RequestInit);
      },
    });
    expect((await refusal(client.beginSignIn('test', { redirectUri }))).metadata.reason).toBe('provider_unreachable');
    await Promise.all([client.beginSignIn('test', { redirectUri }), client.beginSignIn('test', { redirectUri })]);
    await client.beginSignIn('test', { redirectUri });
    expect(discoveries).toHaveLength(2);
  });

  it('times out a provider that accepts the connection and never answers', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const address = silent.address() as { port: number };
      const client = createOidcSignIn({ providers: [providerConfig({ issuer: `http://127.0.0.1:${address.port}` })], timeoutSeconds: 0.5 });
      const started = Date.now();
      const error = await refusal(client.beginSignIn('test', { redirectUri }));
      expect(error.status).toBe(503);
      expect(error.message).toMatch(/did not answer in time/);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
