import * as client from 'openid-client';
import { GatewayError } from '../../errors/gateway-error.js';
import type { OidcProviderConfig } from '../../config/oidc-provider-config.js';

/**
 * Why a sign-in failed, in `error.metadata.reason`, so the page can say what to do next:
 * start again (`state_mismatch`, `code_rejected`), try another method (`provider_refused`), or
 * wait (`provider_unreachable`).
 */
export type OidcFailureReason =
  | 'provider_refused'
  | 'state_mismatch'
  | 'nonce_mismatch'
  | 'audience_mismatch'
  | 'issuer_mismatch'
  | 'token_expired'
  | 'bad_signature'
  | 'invalid_response'
  | 'code_rejected'
  | 'client_rejected'
  | 'provider_unreachable'
  | 'provider_misconfigured';

/**
 * Maps whatever openid-client (or the network under it) threw during a sign-in to a GatewayError:
 * the person's side of the flow (a refusal, a stale or forged callback, a token that fails its
 * checks) is 400 `invalid_request`; the provider being down is 503 `service_unavailable`; the
 * provider answering nonsense or refusing our client credentials is 502 `upstream_error`, an
 * operator's problem. openid-client replaces the message of its inner error with a generic one and
 * keeps the specific one as `cause`, which is what is read here.
 */
export function toSignInError(provider: OidcProviderConfig, error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const who = `Sign-in with ${provider.name}`;
  const fail = (reason: OidcFailureReason, message: string, extra: Record<string, unknown> = {}) =>
    new GatewayError(reasonCode(reason), `${who} failed: ${message}`, { metadata: { reason, provider: provider.id, ...extra }, cause: error });

  if (error instanceof client.AuthorizationResponseError) {
    const description = error.error_description ? ` (${error.error_description})` : '';
    return fail('provider_refused', `the provider answered ${error.error}${description}.`, { provider_error: error.error });
  }
  if (error instanceof client.ResponseBodyError) {
    if (error.error === 'invalid_grant') return fail('code_rejected', 'the provider refused the sign-in code (expired, already used or not ours); please sign in again.');
    if (error.error === 'invalid_client' || error.error === 'unauthorized_client') {
      return fail('client_rejected', "the provider refused the gateway's client credentials (check client_id and client_secret).");
    }
    return fail('provider_misconfigured', `the provider answered ${error.status} ${error.error}.`, { provider_error: error.error });
  }
  // A 401 with WWW-Authenticate (oidc-provider's answer to a wrong client_secret) arrives as a
  // challenge rather than a body error.
  if (error instanceof client.WWWAuthenticateChallengeError) {
    if (error.cause.some((challenge) => challenge.parameters.error === 'invalid_client')) {
      return fail('client_rejected', "the provider refused the gateway's client credentials (check client_id and client_secret).");
    }
    return fail('provider_misconfigured', `the provider answered ${error.status} with an authentication challenge.`);
  }
  if (error instanceof client.ClientError) {
    const inner = error.cause instanceof Error ? error.cause.message : error.message;
    switch (error.code) {
      case 'OAUTH_TIMEOUT':
      case 'OAUTH_ABORT':
        return fail('provider_unreachable', 'the provider did not answer in time.');
      case 'OAUTH_RESPONSE_IS_NOT_CONFORM':
      case 'OAUTH_RESPONSE_IS_NOT_JSON':
      case 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED':
      case 'OAUTH_INVALID_SERVER_METADATA':
      case 'OAUTH_MISSING_SERVER_METADATA':
        return fail('provider_misconfigured', `the provider's answer was unusable (${inner}).`);
      case 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED':
        return fail('token_expired', `the ID token is expired or not yet valid (${inner}).`);
      default:
        return fail(classify(inner), `${inner}.`);
    }
  }
  // undici's "fetch failed" (connection refused, DNS, TLS) is a TypeError whose cause says why.
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return fail('provider_unreachable', `the provider could not be reached${cause}.`);
  }
  if (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return fail('provider_unreachable', 'the provider did not answer in time.');
  }
  return fail('provider_misconfigured', 'an unexpected error occurred while talking to the provider.');
}

/** Which check failed, from oauth4webapi's message (its codes are shared by many checks). */
function classify(message: string): OidcFailureReason {
  if (message.includes('"state"')) return 'state_mismatch';
  if (message.includes('"nonce"')) return 'nonce_mismatch';
  if (message.includes('"aud"') || message.includes('"azp"')) return 'audience_mismatch';
  if (message.includes('"iss"')) return 'issuer_mismatch';
  if (message.includes('signature')) return 'bad_signature';
  return 'invalid_response';
}

function reasonCode(reason: OidcFailureReason): 'invalid_request' | 'upstream_error' | 'service_unavailable' {
  if (reason === 'provider_unreachable') return 'service_unavailable';
  if (reason === 'client_rejected' || reason === 'provider_misconfigured') return 'upstream_error';
  return 'invalid_request';
}
