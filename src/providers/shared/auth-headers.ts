import type { ProviderAuth } from '../../config/types.js';
import { readGoogleAccessToken } from './google-access-token.js';

/**
 * The headers that authenticate one upstream request. Asynchronous because a cloud credential
 * may first need a token (cached, so usually it does not wait).
 */
export async function authHeaders(auth: ProviderAuth): Promise<Record<string, string>> {
  switch (auth.kind) {
    case 'none':
      return {};
    case 'api-key-header': {
      // Set, not a literal with a computed key, which V8 11 defines through a runtime call per request.
      const headers: Record<string, string> = {};
      headers[auth.header] = auth.scheme === undefined ? auth.key : `${auth.scheme} ${auth.key}`;
      return headers;
    }
    case 'bearer':
      return { authorization: `Bearer ${auth.token}` };
    case 'google-service-account':
      return { authorization: `Bearer ${await readGoogleAccessToken(auth)}` };
    // A signature covers the whole request, so it is made where the request is final: `sendRequest`.
    case 'aws-sigv4':
      return {};
  }
}
