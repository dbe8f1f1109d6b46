import { Type, type Static } from '@sinclair/typebox';
import { MAX_USD_AMOUNT } from '../../core/money.js';

const Usd = Type.Number({ minimum: 0, maximum: MAX_USD_AMOUNT });

export const CheckoutBody = Type.Object({ amount: Usd }, { additionalProperties: false });
export type CheckoutBody = Static<typeof CheckoutBody>;

export const CheckoutParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
export type CheckoutParams = Static<typeof CheckoutParams>;

export const AutoTopUpBody = Type.Object({ enabled: Type.Boolean(), threshold: Usd, amount: Usd }, { additionalProperties: false });
export type AutoTopUpBody = Static<typeof AutoTopUpBody>;
