/** Alerts (contract §8). */
export type AlertType = 'low_balance' | 'key_limit' | 'member_limit' | 'auto_top_up_failed' | 'test';

/** The webhook's JSON body; mail and Telegram say the same in words. */
export interface AlertPayload {
  /** `createId('alr')`; the same on every retry of every channel, so a receiver can deduplicate. */
  id: string;
  type: AlertType;
  account_id: string;
  created_at: string;
  /** Plain JSON values; money in USD as numbers, as everywhere at the edge. */
  data: Record<string, unknown>;
}

export type AlertChannel = 'webhook' | 'email' | 'telegram';

/** An account's alert settings, as stored (money in nano-USD). */
export interface AlertSettings {
  accountId: string;
  lowBalanceThreshold: bigint | null;
  keyLimitPercents: number[];
  email: boolean;
  telegram: boolean;
  webhook: { url: string; secret: string } | null;
  updatedAt: string;
}
