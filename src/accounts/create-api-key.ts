import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import { generateApiKey, hashApiKey, labelApiKey } from '../auth/api-key-format.js';
import type { Database } from '../store/database.js';
import { periodStart, type LimitReset } from '../billing/limit-periods.js';
import { insertApiKey, type ApiKeyRecord, type PriceCap } from '../store/repositories/api-keys.js';

export interface NewKeyInput {
  accountId: string;
  name: string;
  management: boolean;
  spendLimit?: bigint | null;
  maxPrice?: PriceCap | null;
  modelMaxPrices?: Record<string, PriceCap>;
  requestsPerMinute?: number | null;
  /** A limit that resets (issue 49); its first period is the current one. */
  limitReset?: LimitReset | null;
  /** The signed-in user making the key, if any (a member manages only its own keys). */
  createdByUserId?: string | null;
  /** Cache every request of the key unless it says `x-switchyard-cache: off` (contract §9). */
  cache?: boolean;
}

/** Generates a key, stores only its SHA-256, and returns the record with the secret (shown once). */
export async function createApiKey(
  db: Kysely<Database>,
  context: Pick<AppContext, 'clock' | 'createId'>,
  input: NewKeyInput,
): Promise<{ record: ApiKeyRecord; secret: string }> {
  const secret = generateApiKey();
  const now = context.clock.now();
  const limitReset = input.limitReset ?? null;
  const record: ApiKeyRecord = {
    id: context.createId('key'),
    accountId: input.accountId,
    name: input.name,
    label: labelApiKey(secret),
    management: input.management,
    createdAt: now.toISOString(),
    revokedAt: null,
    spendLimit: input.spendLimit ?? null,
    usage: 0n,
    reserved: 0n,
    maxPrice: input.maxPrice ?? null,
    modelMaxPrices: input.modelMaxPrices ?? {},
    requestsPerMinute: input.requestsPerMinute ?? null,
    limitReset,
    periodStart: limitReset === null ? null : periodStart(limitReset, now).toISOString(),
    periodUsage: 0n,
    createdByUserId: input.createdByUserId ?? null,
    cache: input.cache === true,
  };
  await insertApiKey(db, { ...record, hash: hashApiKey(secret) });
  return { record, secret };
}
