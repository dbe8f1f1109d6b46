import * as client from 'openid-client';
import { isLoopbackIssuer, type OidcProviderConfig } from '../../config/oidc-provider-config.js';

export interface OidcDiscoveryOptions {
  /** Bound on each request to the provider (discovery, token, keys, userinfo). */
  timeoutSeconds: number;
  /** The fetch openid-client uses; tests pass one to stand between the gateway and the provider. */
  fetch?: client.CustomFetch;
}

/**
 * Discovery per provider, cached: the document and the Configuration built from it live as long as
 * the process. A failed discovery is not cached, so the next sign-in tries again; callers that
 * arrive while one is running share it rather than each asking the provider.
 */
export function createOidcDiscovery(options: OidcDiscoveryOptions): (provider: OidcProviderConfig) => Promise<client.Configuration> {
  const cache = new Map<string, Promise<client.Configuration>>();
  return (provider) => {
    const cached = cache.get(provider.id);
    if (cached) return cached;
    const pending = discover(provider, options);
    cache.set(provider.id, pending);
    pending.catch(() => {
      if (cache.get(provider.id) === pending) cache.delete(provider.id);
    });
    return pending;
  };
}

async function discover(provider: OidcProviderConfig, options: OidcDiscoveryOptions): Promise<client.Configuration> {
  // Plain http only for loopback issuers (the config schema refuses others; checked again here
  // because the flag turns off openid-client's https-only rule for every later request too).
  const insecure = new URL(provider.issuer).protocol === 'http:';
  if (insecure && !isLoopbackIssuer(provider.issuer)) throw new TypeError(`issuer ${provider.issuer} is plain http on a host that is not loopback`);
  const configuration = await client.discovery(new URL(provider.issuer), provider.client_id, provider.client_secret, clientSecretAuth(provider.client_secret), {
    timeout: options.timeoutSeconds,
    execute: insecure ? [client.allowInsecureRequests] : [],
    ...(options.fetch ? { [client.customFetch]: options.fetch } : {}),
  });
  // The ID token comes straight from the token endpoint, which openid-client trusts without
  // checking its signature (OIDC Core 3.1.3.7 allows it over TLS). The contract asks for the
  // signature to be checked, and a loopback provider has no TLS: verify it against the provider's keys.
  client.enableNonRepudiationChecks(configuration);
  return configuration;
}

/**
 * client_secret_basic where the provider lists it (or lists nothing: basic is the spec's default),
 * client_secret_post otherwise: a client registered for one method is refused with the other.
 */
function clientSecretAuth(secret: string): client.ClientAuth {
  const basic = client.ClientSecretBasic(secret);
  const post = client.ClientSecretPost(secret);
  return (server, metadata, body, headers) => {
    const methods = server.token_endpoint_auth_methods_supported;
    const useBasic = !methods || methods.includes('client_secret_basic');
    (useBasic ? basic : post)(server, metadata, body, headers);
  };
}
