import { Type, type Static } from '@sinclair/typebox';

/**
 * An issuer the gateway may sign people in with: https, or plain http only on a loopback host
 * (a provider started by a test or on the operator's own machine). Anything else would let a
 * network attacker serve the discovery document and the signing keys.
 */
export const oidcIssuerPattern = '^(https://[^\\s/?#]+|http://(127\\.0\\.0\\.1|localhost|\\[::1\\])(:\\d+)?)(/[^\\s?#]*)?$';

/**
 * One entry of `auth.oidc` (contract §7, "Sign-in methods"): an OpenID Connect provider found by
 * discovery from its issuer. It lives in config/ rather than beside the client in people/oidc/
 * because the config schema imports it, and arrows run down.
 */
export const OidcProviderConfigSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]*$', maxLength: 64, description: 'a lowercase slug, the {id} of /auth/oidc/{id}/…' }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'the label on the sign-in button' }),
    issuer: Type.String({ pattern: oidcIssuerPattern, description: 'an https issuer URL (http only on 127.0.0.1, localhost or [::1])' }),
    client_id: Type.String({ minLength: 1 }),
    client_secret: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);

export type OidcProviderConfig = Static<typeof OidcProviderConfigSchema>;

/** True for an issuer on a loopback host, the only place plain http is allowed. */
export function isLoopbackIssuer(issuer: string): boolean {
  const url = new URL(issuer);
  return url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
}
