import type { Catalog } from '../../catalog/catalog.js';
import { invalidRequest } from '../../errors/gateway-error.js';
import { decodeUsd } from '../../http/decode-usd.js';
import type { KeyLimitChanges, PriceCap } from '../../store/repositories/api-keys.js';
import type { LimitFieldsInput, PriceCapInput } from './key-schemas.js';

/**
 * Turns the API's USD fields into exact limit changes. `undefined` leaves a setting alone,
 * `null` clears it; model ids in `model_max_prices` must be in the catalog.
 */
export function decodeLimits(catalog: Catalog, input: LimitFieldsInput): KeyLimitChanges {
  const changes: KeyLimitChanges = {};
  if (input.limit !== undefined) changes.spendLimit = input.limit === null ? null : decodeUsd(input.limit, 'limit');
  if (input.max_price !== undefined) changes.maxPrice = input.max_price === null ? null : decodeCap(input.max_price, 'max_price');
  if (input.model_max_prices !== undefined) {
    const prices: Record<string, PriceCap> = {};
    for (const [model, cap] of Object.entries(input.model_max_prices ?? {})) {
      if (!catalog.modelById.has(model)) throw invalidRequest(`'model_max_prices' names unknown model '${model}'`, `model_max_prices.${model}`);
      if (cap !== null) prices[model] = decodeCap(cap, `model_max_prices.${model}`);
    }
    changes.modelMaxPrices = prices;
  }
  if (input.requests_per_minute !== undefined) changes.requestsPerMinute = input.requests_per_minute;
  if (input.cache !== undefined) changes.cache = input.cache;
  return changes;
}

function decodeCap(cap: PriceCapInput, param: string): PriceCap {
  return {
    prompt: cap.prompt === undefined || cap.prompt === null ? null : decodeUsd(cap.prompt, `${param}.prompt`),
    completion: cap.completion === undefined || cap.completion === null ? null : decodeUsd(cap.completion, `${param}.completion`),
  };
}
