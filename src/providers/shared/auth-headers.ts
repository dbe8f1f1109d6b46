import type { ProviderAuth } from '../../config/types.js';

/** The headers that authenticate one upstream request. */
export function authHeaders(auth: ProviderAuth): Record<string, string> {
  switch (auth.kind) {
    case 'none':
      return {};
    case 'api-key-header':
      return { [auth.header]: auth.scheme === undefined ? auth.key : `${auth.scheme} ${auth.key}` };
    case 'bearer':
      return { authorization: `Bearer ${auth.token}` };
  }
}
