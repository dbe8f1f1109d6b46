import { request } from './api.js';

export interface PaymentOptions {
  currency: string;
  amounts: number[];
  min: number;
  max: number;
  feePercent: number;
  feeFixed: number;
}

/** What `GET /auth/providers` says is on: the sign-in choices, the sign-up mode and the top-up amounts. */
export interface AuthProviders {
  oidc: Array<{ id: string; name: string }>;
  telegram: { botUsername: string } | null;
  email: boolean;
  signUpMode: 'closed' | 'open' | 'invite' | null;
  payments: PaymentOptions | null;
}

/** Contract §7's defaults (`payments.stripe`), for a server that does not list its own. */
export const defaultPaymentOptions: PaymentOptions = { currency: 'usd', amounts: [5, 10, 25, 100], min: 5, max: 1000, feePercent: 0, feeFixed: 0 };

const numberOr = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);

export function readPaymentOptions(raw: any): PaymentOptions | null {
  const stripe = raw?.stripe ?? raw;
  if (!stripe || typeof stripe !== 'object') return null;
  const amounts = Array.isArray(stripe.amounts) ? stripe.amounts.filter((amount: unknown) => typeof amount === 'number') : defaultPaymentOptions.amounts;
  return {
    currency: typeof stripe.currency === 'string' ? stripe.currency : 'usd',
    amounts,
    min: numberOr(stripe.min, defaultPaymentOptions.min),
    max: numberOr(stripe.max, defaultPaymentOptions.max),
    feePercent: numberOr(stripe.fee_percent, 0),
    feeFixed: numberOr(stripe.fee_fixed, 0),
  };
}

/**
 * Reads the list leniently, as the page reads any answer: only the fields it shows, and a missing
 * method is off. OIDC entries may come as `oidc: [{id, name}]` or as `providers` with a `type`.
 */
export async function loadAuthProviders(): Promise<AuthProviders> {
  const { json } = await request(null, 'GET', '/auth/providers');
  const data = json?.data ?? {};
  const listed: any[] = Array.isArray(data.oidc) ? data.oidc : Array.isArray(data.providers) ? data.providers.filter((entry: any) => entry?.type === 'oidc') : [];
  const telegram = data.telegram;
  const botUsername = typeof telegram === 'object' && telegram !== null ? (telegram.bot_username ?? telegram.username ?? telegram.bot) : null;
  const mode = data.signup?.mode ?? data.signup_mode ?? null;
  return {
    oidc: listed.filter((entry) => typeof entry?.id === 'string').map((entry) => ({ id: entry.id, name: String(entry.name ?? entry.id) })),
    telegram: typeof botUsername === 'string' && telegram?.login !== false ? { botUsername } : null,
    email: Boolean(data.email),
    signUpMode: mode === 'closed' || mode === 'open' || mode === 'invite' ? mode : null,
    payments: data.payments ? readPaymentOptions(data.payments) : null,
  };
}
