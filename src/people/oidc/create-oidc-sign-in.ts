import * as client from 'openid-client';
import type { OidcProviderConfig } from '../../config/oidc-provider-config.js';
import { notFound } from '../../errors/gateway-error.js';
import { createOidcDiscovery } from './discover-oidc-provider.js';
import { toSignInError } from './to-sign-in-error.js';

/** What the start of a sign-in hands back: the URL to redirect to, and the three secrets the caller keeps server-side until the callback. */
export interface OidcSignInStart {
  authorizationUrl: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface OidcSignInFinish {
  /** The full URL the browser came back to (path and query; its origin is not used). */
  callbackUrl: string;
  /** The same redirect URI that beginSignIn was given; sent to the token endpoint. */
  redirectUri: string;
  /** What beginSignIn returned for this state, read back from the caller's store. */
  expected: { state: string; nonce: string; codeVerifier: string };
}

/** The person the provider vouched for. `emailVerified` is true only for `email_verified === true`. */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

export interface OidcSignIn {
  /** The configured providers, in config order, for `GET /auth/providers`. */
  providers(): Array<{ id: string; name: string }>;
  beginSignIn(providerId: string, options: { redirectUri: string }): Promise<OidcSignInStart>;
  finishSignIn(providerId: string, options: OidcSignInFinish): Promise<OidcIdentity>;
}

export interface OidcSignInOptions {
  providers: readonly OidcProviderConfig[];
  /** Bound on each request to a provider; 10 s unless given. */
  timeoutSeconds?: number;
  /** Replaces the fetch openid-client uses (tests). */
  fetch?: client.CustomFetch;
}

const scope = 'openid email profile';

/**
 * OpenID Connect sign-in (contract §7): authorization code with PKCE (S256), a fresh `state` and
 * `nonce` per sign-in, and every check of the answer left to openid-client (state, issuer,
 * audience, signature, expiry, nonce). Stateless: the caller stores the state, nonce and verifier
 * between the two calls, and deletes them on use so that a state is never accepted twice.
 * Every failure is a GatewayError (see toSignInError); an unknown provider id is 404.
 */
export function createOidcSignIn(options: OidcSignInOptions): OidcSignIn {
  const byId = new Map(options.providers.map((provider) => [provider.id, provider]));
  const discover = createOidcDiscovery({ timeoutSeconds: options.timeoutSeconds ?? 10, fetch: options.fetch });
  const providerOf = (id: string): OidcProviderConfig => {
    const provider = byId.get(id);
    if (!provider) throw notFound(`Sign-in provider '${id}'`);
    return provider;
  };

  return {
    providers: () => options.providers.map(({ id, name }) => ({ id, name })),

    async beginSignIn(providerId, { redirectUri }) {
      const provider = providerOf(providerId);
      try {
        const configuration = await discover(provider);
        const state = client.randomState();
        const nonce = client.randomNonce();
        const codeVerifier = client.randomPKCECodeVerifier();
        const authorizationUrl = client.buildAuthorizationUrl(configuration, {
          redirect_uri: redirectUri,
          scope,
          state,
          nonce,
          code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
          code_challenge_method: 'S256',
        });
        return { authorizationUrl: authorizationUrl.href, state, nonce, codeVerifier };
      } catch (error) {
        throw toSignInError(provider, error);
      }
    },

    async finishSignIn(providerId, { callbackUrl, redirectUri, expected }) {
      const provider = providerOf(providerId);
      try {
        const configuration = await discover(provider);
        const tokens = await client.authorizationCodeGrant(configuration, callbackAt(redirectUri, callbackUrl), {
          pkceCodeVerifier: expected.codeVerifier,
          expectedState: expected.state,
          expectedNonce: expected.nonce,
          idTokenExpected: true,
        });
        const claims = tokens.claims();
        if (!claims) throw new TypeError('the token response had no ID token');
        // A provider may keep email out of the ID token (oidc-provider's default, per OIDC Core
        // 5.4 for the code flow) and serve it at userinfo; fetchUserInfo checks that its `sub`
        // is the ID token's.
        const source =
          typeof claims.email === 'string' || !configuration.serverMetadata().userinfo_endpoint
            ? claims
            : await client.fetchUserInfo(configuration, tokens.access_token, claims.sub);
        return {
          issuer: claims.iss,
          subject: claims.sub,
          email: typeof source.email === 'string' ? source.email : null,
          emailVerified: source.email_verified === true,
          name: typeof source.name === 'string' ? source.name : typeof claims.name === 'string' ? claims.name : null,
        };
      } catch (error) {
        throw toSignInError(provider, error);
      }
    },
  };
}

/**
 * The callback's query on the configured redirect URI. openid-client sends the URL it is given,
 * stripped of its query, as the token request's `redirect_uri`, which must equal the one of the
 * authorization request; behind a proxy the URL a route sees may differ in scheme or host.
 */
function callbackAt(redirectUri: string, callbackUrl: string): URL {
  const url = new URL(redirectUri);
  url.search = new URL(callbackUrl, url).search;
  return url;
}
