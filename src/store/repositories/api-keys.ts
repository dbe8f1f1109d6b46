import type { Kysely, Selectable, Updateable } from 'kysely';
import type { ApiKeysTable, Database } from '../database.js';
import { toBigInt, toBoolean, toNumber } from '../convert.js';

/** Per-1M-token price caps in nano-USD; an absent side is not capped. */
export interface PriceCap {
  prompt: bigint | null;
  completion: bigint | null;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  label: string;
  management: boolean;
  createdAt: string;
  revokedAt: string | null;
  spendLimit: bigint | null;
  usage: bigint;
  reserved: bigint;
  maxPrice: PriceCap | null;
  modelMaxPrices: Record<string, PriceCap>;
  requestsPerMinute: number | null;
  /** 'daily' | 'weekly' | 'monthly', or null: a lifetime limit (issue 49). */
  limitReset: string | null;
  /** The start of the period `periodUsage` counts (ISO 8601); null without a reset. */
  periodStart: string | null;
  /** What the limit counts: charged since `periodStart`, or the lifetime usage without a reset. */
  periodUsage: bigint;
  /** The signed-in user who made the key, or null (a management key's, the admin API's, the CLI's). */
  createdByUserId: string | null;
  /** Caches every request unless it says `x-switchyard-cache: off` (contract §9). */
  cache: boolean;
}

export interface NewApiKey {
  id: string;
  accountId: string;
  name: string;
  label: string;
  hash: string;
  management: boolean;
  createdAt: string;
  spendLimit: bigint | null;
  maxPrice: PriceCap | null;
  modelMaxPrices: Record<string, PriceCap>;
  requestsPerMinute: number | null;
  limitReset?: string | null;
  cache?: boolean;
  /** The current period's start when `limitReset` is set. */
  periodStart?: string | null;
  createdByUserId?: string | null;
}

export async function insertApiKey(db: Kysely<Database>, key: NewApiKey): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({
      id: key.id,
      account_id: key.accountId,
      name: key.name,
      label: key.label,
      hash: key.hash,
      management: key.management ? 1 : 0,
      created_at: key.createdAt,
      revoked_at: null,
      spend_limit: key.spendLimit,
      usage: 0n,
      reserved: 0n,
      max_price_prompt: key.maxPrice?.prompt ?? null,
      max_price_completion: key.maxPrice?.completion ?? null,
      model_max_prices: serializeModelMaxPrices(key.modelMaxPrices),
      requests_per_minute: key.requestsPerMinute,
      limit_reset: key.limitReset ?? null,
      period_start: key.periodStart ?? null,
      created_by_user_id: key.createdByUserId ?? null,
      cache: key.cache === true ? 1 : null,
    })
    .execute();
}

/** The active key with this hash, for authentication. */
export async function findActiveKeyByHash(db: Kysely<Database>, hash: string): Promise<(ApiKeyRecord & { hash: string }) | undefined> {
  const row = await db.selectFrom('api_keys').selectAll().where('hash', '=', hash).where('revoked_at', 'is', null).executeTakeFirst();
  return row ? { ...toApiKeyRecord(row), hash: row.hash } : undefined;
}

/** One active key of the account; another account's key is indistinguishable from a missing one. */
export async function findActiveKey(db: Kysely<Database>, accountId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row ? toApiKeyRecord(row) : undefined;
}

/** Active keys of the account, newest first, after `cursor` (a key id); `createdBy`: only the keys that user made. */
export async function listActiveKeys(db: Kysely<Database>, accountId: string, options: { limit: number; cursor?: string; createdBy?: string }): Promise<ApiKeyRecord[]> {
  let query = db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).where('revoked_at', 'is', null);
  if (options.createdBy !== undefined) query = query.where('created_by_user_id', '=', options.createdBy);
  if (options.cursor) query = query.where('id', '<', options.cursor);
  const rows = await query.orderBy('id', 'desc').limit(options.limit).execute();
  return rows.map(toApiKeyRecord);
}

export interface KeyLimitChanges {
  spendLimit?: bigint | null;
  maxPrice?: PriceCap | null;
  modelMaxPrices?: Record<string, PriceCap>;
  requestsPerMinute?: number | null;
  /** The key's response-cache setting (contract §9). */
  cache?: boolean;
}

export async function updateKeyLimits(db: Kysely<Database>, accountId: string, keyId: string, changes: KeyLimitChanges): Promise<boolean> {
  const set: Updateable<ApiKeysTable> = {};
  if (changes.spendLimit !== undefined) set.spend_limit = changes.spendLimit;
  if (changes.maxPrice !== undefined) {
    set.max_price_prompt = changes.maxPrice?.prompt ?? null;
    set.max_price_completion = changes.maxPrice?.completion ?? null;
  }
  if (changes.modelMaxPrices !== undefined) set.model_max_prices = serializeModelMaxPrices(changes.modelMaxPrices);
  if (changes.requestsPerMinute !== undefined) set.requests_per_minute = changes.requestsPerMinute;
  if (changes.cache !== undefined) set.cache = changes.cache ? 1 : null;
  if (Object.keys(set).length === 0) return (await findActiveKey(db, accountId, keyId)) !== undefined;
  const result = await db
    .updateTable('api_keys')
    .set(set)
    .where('account_id', '=', accountId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Marks the key revoked; returns its hash so caches can drop it, or undefined when there was no such active key. */
export async function revokeKey(db: Kysely<Database>, accountId: string, keyId: string, revokedAt: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .select('hash')
    .where('account_id', '=', accountId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: revokedAt })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0 ? row.hash : undefined;
}

function toApiKeyRecord(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  const prompt = row.max_price_prompt === null ? null : toBigInt(row.max_price_prompt);
  const completion = row.max_price_completion === null ? null : toBigInt(row.max_price_completion);
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    label: row.label,
    management: toBoolean(row.management),
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    spendLimit: row.spend_limit === null ? null : toBigInt(row.spend_limit),
    usage: toBigInt(row.usage),
    reserved: toBigInt(row.reserved),
    maxPrice: prompt === null && completion === null ? null : { prompt, completion },
    modelMaxPrices: parseModelMaxPrices(row.model_max_prices),
    requestsPerMinute: row.requests_per_minute === null ? null : toNumber(row.requests_per_minute),
    limitReset: row.limit_reset,
    periodStart: row.period_start,
    periodUsage: toBigInt(row.period_usage),
    createdByUserId: row.created_by_user_id,
    cache: row.cache !== null && row.cache !== undefined && Number(row.cache) === 1,
  };
}

function serializeModelMaxPrices(prices: Record<string, PriceCap>): string {
  return JSON.stringify(prices, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
}

function parseModelMaxPrices(text: string): Record<string, PriceCap> {
  const parsed = JSON.parse(text) as Record<string, { prompt: string | null; completion: string | null }>;
  return Object.fromEntries(
    Object.entries(parsed).map(([model, cap]) => [model, { prompt: cap.prompt === null ? null : BigInt(cap.prompt), completion: cap.completion === null ? null : BigInt(cap.completion) }]),
  );
}

/** The names of the account's keys among `keyIds`, revoked ones included (a log row outlives its key). */
export async function keyNamesOf(db: Kysely<Database>, accountId: string, keyIds: readonly string[]): Promise<Map<string, string>> {
  if (keyIds.length === 0) return new Map();
  const rows = await db.selectFrom('api_keys').select(['id', 'name']).where('account_id', '=', accountId).where('id', 'in', [...keyIds]).execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** Revokes every active key the user made in the account (a member removed); answers their ids, for the caches. */
export async function revokeKeysCreatedBy(db: Kysely<Database>, accountId: string, userId: string, revokedAt: string): Promise<string[]> {
  const rows = await db
    .updateTable('api_keys')
    .set({ revoked_at: revokedAt })
    .where('account_id', '=', accountId)
    .where('created_by_user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/** The active keys a member made in the account. */
export async function listKeyIdsCreatedBy(db: Kysely<Database>, accountId: string, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('api_keys').select('id').where('account_id', '=', accountId).where('created_by_user_id', '=', userId).where('revoked_at', 'is', null).execute();
  return rows.map((row) => row.id);
}

/** What each member's keys have spent in the account, revoked keys included, by the user who made them. */
export async function usageByCreator(db: Kysely<Database>, accountId: string, userIds: readonly string[]): Promise<Map<string, bigint>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('api_keys')
    .select(['created_by_user_id', (eb) => eb.fn.sum<string | number | bigint>('usage').as('usage')])
    .where('account_id', '=', accountId)
    .where('created_by_user_id', 'in', [...userIds])
    .groupBy('created_by_user_id')
    .execute();
  return new Map(rows.map((row) => [row.created_by_user_id ?? '', toBigInt(row.usage)]));
}
