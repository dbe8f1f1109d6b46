import type { Kysely } from 'kysely';
import { GatewayError } from '../errors/gateway-error.js';
import type { Database } from '../store/database.js';
import { findActiveKeyByHash } from '../store/repositories/api-keys.js';
import { hashApiKey, looksLikeApiKey, secretsEqual } from './api-key-format.js';
import type { KeyCache } from './key-cache.js';
import type { Principal } from './principal.js';

/**
 * Reads the key from `Authorization: Bearer …`, `x-api-key` (Anthropic-compatible clients) or
 * `x-goog-api-key` (Gemini clients). Returns undefined when no such header is present.
 */
export function readPresentedKey(headers: Record<string, string | string[] | undefined>): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string' && authorization !== '') {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    return match ? match[1].trim() : authorization.trim();
  }
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey !== '') return apiKey.trim();
  const googleKey = headers['x-goog-api-key'];
  if (typeof googleKey === 'string' && googleKey !== '') return googleKey.trim();
  return undefined;
}

export function invalidApiKey(message = 'Invalid or missing API key'): GatewayError {
  return new GatewayError('invalid_api_key', message);
}

/**
 * The principal of a well-formed key already in the cache (a hash and a map lookup, no promise),
 * or undefined: then `authenticateKey`, which also says what is wrong with the key.
 */
export function cachedPrincipal(cache: KeyCache, key: string | undefined): Principal | undefined {
  return key !== undefined && looksLikeApiKey(key) ? cache.get(hashApiKey(key)) : undefined;
}

/** Resolves a presented key to its principal: cache first, then the database by hash. */
export async function authenticateKey(db: Kysely<Database>, cache: KeyCache, key: string | undefined): Promise<Principal> {
  if (key === undefined) throw invalidApiKey('Missing API key: send Authorization: Bearer <key> or x-api-key');
  if (!looksLikeApiKey(key)) throw invalidApiKey();
  const hash = hashApiKey(key);
  const cached = cache.get(hash);
  if (cached) return cached;
  const record = await findActiveKeyByHash(db, hash);
  // The lookup is by hash; the constant-time comparison guards against any index-side shortcut.
  if (!record || !secretsEqual(record.hash, hash)) throw invalidApiKey();
  const principal: Principal = {
    keyId: record.id,
    accountId: record.accountId,
    management: record.management,
    maxPrice: record.maxPrice,
    modelMaxPrices: record.modelMaxPrices,
    requestsPerMinute: record.requestsPerMinute,
    ...(record.cache && { cache: true }),
  };
  cache.set(hash, principal);
  return principal;
}
