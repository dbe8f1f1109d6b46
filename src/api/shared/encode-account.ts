import { nanoToUsd } from '../../core/money.js';
import type { AccountRecord } from '../../store/repositories/accounts.js';

/** Spendable balance: credits minus what was charged. Open reservations are not subtracted here. */
export function balanceOf(account: AccountRecord): bigint {
  return account.totalCredits - account.totalUsage;
}

export function encodeAccount(account: AccountRecord): Record<string, unknown> {
  return {
    id: account.id,
    name: account.name,
    created_at: account.createdAt,
    balance: nanoToUsd(balanceOf(account)),
    total_credits: nanoToUsd(account.totalCredits),
    total_usage: nanoToUsd(account.totalUsage),
    messenger_linked: account.messengerLinked,
  };
}
