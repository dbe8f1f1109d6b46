import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import { generateApiKey, hashApiKey, labelApiKey } from '../auth/api-key-format.js';
import type { Database } from '../store/database.js';
import { insertApiKey, type ApiKeyRecord, type PriceCap } from '../store/repositories/api-keys.js';

export interface NewKeyInput {
  accountId: string;
  name: string;
  management: boolean;
  spendLimit?: bigint | null;
  maxPrice?: PriceCap | null;
  modelMaxPrices?: Record<string, PriceCap>;
  requestsPerMinute?: number | null;
  /** The signed-in user making the key, if any (a member manages only its own keys). */
  createdByUserId?: string | null;
}

/** Generates a key, stores only its SHA-256, and returns the record with the secret (shown once). */
export async function createApiKey(
  db: Kysely<Database>,
  context: Pick<AppContext, 'clock' | 'createId'>,
  input: NewKeyInput,
): Promise<{ record: ApiKeyRecord; secret: string }> {
  const secret = generateApiKey();
  const record: ApiKeyRecord = {
    id: context.createId('key'),
    accountId: input.accountId,
    name: input.name,
    label: labelApiKey(secret),
    management: input.management,
    createdAt: context.clock.now().toISOString(),
    revokedAt: null,
    spendLimit: input.spendLimit ?? null,
    usage: 0n,
    reserved: 0n,
    maxPrice: input.maxPrice ?? null,
    modelMaxPrices: input.modelMaxPrices ?? {},
    requestsPerMinute: input.requestsPerMinute ?? null,
    createdByUserId: input.createdByUserId ?? null,
  };
  await insertApiKey(db, { ...record, hash: hashApiKey(secret) });
  return { record, secret };
}
