import { JWT } from 'google-auth-library';
import type { ProviderAuth } from '../../config/types.js';
import { UpstreamError } from './upstream-error.js';

type ServiceAccountAuth = Extract<ProviderAuth, { kind: 'google-service-account' }>;

/** Where google-auth-library sends a service account's token request unless told otherwise. */
const googleTokenUrl = 'https://oauth2.googleapis.com/token';
const cloudPlatformScope = 'https://www.googleapis.com/auth/cloud-platform';
/** A token is renewed this long before it expires (at most a quarter of its life), so no request carries one that dies in flight. */
const refreshMarginMs = 60_000;

interface TokenSource {
  client: JWT;
  token?: string;
  expiresAt: number;
  refreshMarginMs: number;
  /** The one refresh under way, shared by every request that finds the token stale. */
  pending?: Promise<string>;
}

const sources = new WeakMap<ServiceAccountAuth, TokenSource>();

/**
 * An OAuth access token for a service account (Vertex AI): from the cache while it has more than
 * the margin left, else from one refresh that all concurrent requests await. The token exchange
 * (a signed JWT assertion for a bearer token) is google-auth-library's; the service account's
 * `token_uri` is honoured, which the library's JWT client would otherwise ignore.
 */
export async function readGoogleAccessToken(auth: ServiceAccountAuth): Promise<string> {
  let source = sources.get(auth);
  if (!source) {
    source = { client: createClient(auth), expiresAt: 0, refreshMarginMs };
    sources.set(auth, source);
  }
  if (source.token !== undefined && Date.now() < source.expiresAt - source.refreshMarginMs) return source.token;
  source.pending ??= refresh(auth, source).finally(() => {
    source.pending = undefined;
  });
  return source.pending;
}

async function refresh(auth: ServiceAccountAuth, source: TokenSource): Promise<string> {
  const startedAt = Date.now();
  let credentials;
  try {
    credentials = await source.client.authorize();
  } catch (error) {
    throw new UpstreamError({ provider: auth.providerId, status: 0, message: `${auth.providerId}: the service account's token request failed (${error instanceof Error ? error.message : String(error)})`, cause: error });
  }
  if (!credentials.access_token) throw new UpstreamError({ provider: auth.providerId, status: 0, message: `${auth.providerId}: the token endpoint answered no access token` });
  const expiresAt = credentials.expiry_date ?? startedAt + 3_600_000;
  source.token = credentials.access_token;
  source.expiresAt = expiresAt;
  source.refreshMarginMs = Math.min(refreshMarginMs, (expiresAt - startedAt) / 4);
  return credentials.access_token;
}

function createClient(auth: ServiceAccountAuth): JWT {
  // eagerRefreshThresholdMillis 0: the library fetches when asked; when to ask is decided above.
  const client = new JWT({ email: auth.clientEmail, key: auth.privateKey, keyId: auth.privateKeyId, scopes: [cloudPlatformScope], eagerRefreshThresholdMillis: 0 });
  if (auth.tokenUri !== googleTokenUrl) {
    client.transporter.interceptors.request.add({
      resolved: async (options) => {
        if (String(options.url) === googleTokenUrl) options.url = new URL(auth.tokenUri);
        return options;
      },
    });
  }
  return client;
}
