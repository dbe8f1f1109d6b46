import type { Kysely } from 'kysely';
import { nanoToUsd } from '../../core/money.js';
import type { Database } from '../../store/database.js';
import type { ApiKeyRecord, PriceCap } from '../../store/repositories/api-keys.js';
import { leasedOfKeys } from '../../billing/db/leases.js';

/** Key objects of one account, each `limit_remaining` with what fund leases hold of it left in (see `encodeKey`). */
export async function encodeKeys(db: Kysely<Database>, accountId: string, keys: readonly ApiKeyRecord[]): Promise<Array<Record<string, unknown>>> {
  const leased = await leasedOfKeys(db, accountId, keys.filter((key) => key.spendLimit !== null).map((key) => key.id));
  return keys.map((key) => encodeKey(key, leased.get(key.id)));
}

/**
 * The key object of docs/api-decisions.md §5; prices in USD per 1M tokens. `limit_remaining` is
 * the limit less the usage and less what running requests hold on the exact path; `leased`, the
 * part of `reserved` that fund leases hold (still the key's to spend), is not taken off.
 */
export function encodeKey(key: ApiKeyRecord, leased = 0n): Record<string, unknown> {
  const remaining = key.spendLimit === null ? null : key.spendLimit - key.usage - (key.reserved - leased);
  return {
    id: key.id,
    name: key.name,
    label: key.label,
    management: key.management,
    created_at: key.createdAt,
    limit: key.spendLimit === null ? null : nanoToUsd(key.spendLimit),
    limit_remaining: remaining === null ? null : nanoToUsd(remaining > 0n ? remaining : 0n),
    usage: nanoToUsd(key.usage),
    max_price: key.maxPrice ? encodeCap(key.maxPrice) : null,
    model_max_prices: Object.fromEntries(Object.entries(key.modelMaxPrices).map(([model, cap]) => [model, encodeCap(cap)])),
    requests_per_minute: key.requestsPerMinute,
  };
}

function encodeCap(cap: PriceCap): { prompt: number | null; completion: number | null } {
  return {
    prompt: cap.prompt === null ? null : nanoToUsd(cap.prompt),
    completion: cap.completion === null ? null : nanoToUsd(cap.completion),
  };
}
