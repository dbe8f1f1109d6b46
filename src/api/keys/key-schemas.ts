import { Type } from '@sinclair/typebox';
import { MAX_USD_AMOUNT } from '../../core/money.js';
import type { LimitReset } from '../../billing/limit-periods.js';

const Usd = Type.Number({ minimum: 0, maximum: MAX_USD_AMOUNT });
const PriceCapBody = Type.Object(
  { prompt: Type.Optional(Type.Union([Usd, Type.Null()])), completion: Type.Optional(Type.Union([Usd, Type.Null()])) },
  { additionalProperties: false },
);

/** Spending controls shared by POST /keys and PATCH /keys/{id}/limit. Prices are USD per 1M tokens. */
const limitFields = {
  limit: Type.Optional(Type.Union([Usd, Type.Null()])),
  max_price: Type.Optional(Type.Union([PriceCapBody, Type.Null()])),
  model_max_prices: Type.Optional(Type.Union([Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.Union([PriceCapBody, Type.Null()]), { maxProperties: 1000 }), Type.Null()])),
  requests_per_minute: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 1_000_000_000 }), Type.Null()])),
  // Contract §8 (OpenRouter's names): the limit counts the current period only; null, a lifetime total.
  limit_reset: Type.Optional(Type.Union([Type.Literal('daily'), Type.Literal('weekly'), Type.Literal('monthly'), Type.Null()])),
  // Contract §9: every request of the key is cached unless it says `x-switchyard-cache: off`.
  cache: Type.Optional(Type.Boolean()),
};

export const CreateKeyBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), management: Type.Optional(Type.Boolean()), ...limitFields },
  { additionalProperties: false },
);

export const UpdateKeyLimitBody = Type.Object(limitFields, { additionalProperties: false });

export interface PriceCapInput {
  prompt?: number | null;
  completion?: number | null;
}

export interface LimitFieldsInput {
  limit?: number | null;
  max_price?: PriceCapInput | null;
  model_max_prices?: Record<string, PriceCapInput | null> | null;
  requests_per_minute?: number | null;
  limit_reset?: LimitReset | null;
  cache?: boolean;
}

export interface CreateKeyInput extends LimitFieldsInput {
  name?: string;
  management?: boolean;
}
