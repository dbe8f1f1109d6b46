import { ApiError, callApi, type Credential } from './api.js';

/** The operator's top-up terms (`GET /v1/credits/checkout/options`): the amount buttons, the bounds and the fee. */
export interface PaymentOptions {
  currency: string;
  amounts: number[];
  min: number;
  max: number;
  feePercent: number;
  feeFixed: number;
}

interface OptionsAnswer {
  data: { currency: string; amounts: number[]; min: number; max: number; fee_percent: number; fee_fixed: number };
}

/** The terms, or null when this gateway takes no payments (the route is absent: 404). */
export async function loadPaymentOptions(credential: Credential): Promise<PaymentOptions | null> {
  try {
    const { data } = await callApi<OptionsAnswer>(credential, 'GET', '/v1/credits/checkout/options');
    return { currency: data.currency, amounts: data.amounts, min: data.min, max: data.max, feePercent: data.fee_percent, feeFixed: data.fee_fixed };
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}
