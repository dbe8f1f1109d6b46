import type { AppContext } from '../app-context.js';
import { GatewayError } from '../errors/gateway-error.js';
import { listExpiredReservations, readSpendable, reserveFunds, settleReservation } from '../store/repositories/ledger.js';

export interface Reservation {
  id: string;
  accountId: string;
  keyId: string | null;
  amount: bigint;
}

/** How long a reservation may stay open before the sweeper assumes its request died. */
export const reservationLifetimeMs = 2 * 60 * 60 * 1000;

/**
 * Reserve before a provider is called, settle after (contract §5). Every reservation ends in
 * exactly one settle or release; one that is never ended (a crash) is released by
 * `releaseExpired` once it outlives its bound. A zero amount (free models) touches no table.
 */
export class Ledger {
  constructor(private readonly context: Pick<AppContext, 'store' | 'clock' | 'createId'>) {}

  async reserve(input: { accountId: string; keyId: string | null; requestId: string; amount: bigint }): Promise<Reservation> {
    const id = this.context.createId('rsv');
    if (input.amount <= 0n) return { id, accountId: input.accountId, keyId: input.keyId, amount: 0n };
    const now = this.context.clock.now();
    const outcome = await this.context.store.db.transaction().execute(async (trx) => {
      const result = await reserveFunds(trx, {
        id,
        accountId: input.accountId,
        keyId: input.keyId,
        requestId: input.requestId,
        amount: input.amount,
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + reservationLifetimeMs).toISOString(),
      });
      // Throwing rolls back the account's part when the key refuses.
      if (result === 'key_limit') throw new GatewayError('insufficient_balance', "This key's spending limit is used up", { metadata: { limit_type: 'key_limit' } });
      return result;
    });
    if (outcome === 'insufficient_balance') throw new GatewayError('insufficient_balance', 'Insufficient balance: add credits to continue');
    return { id, accountId: input.accountId, keyId: input.keyId, amount: input.amount };
  }

  /** Charges the actual cost (never more than reserved) and releases the rest. Returns what was charged. */
  async settle(reservation: Reservation, cost: bigint): Promise<bigint> {
    if (reservation.amount === 0n) return 0n;
    const charged = await this.context.store.db.transaction().execute((trx) =>
      settleReservation(trx, { reservationId: reservation.id, cost, ledgerId: this.context.createId('led'), createdAt: this.context.clock.now().toISOString() }),
    );
    return charged ?? 0n;
  }

  async release(reservation: Reservation): Promise<void> {
    await this.settle(reservation, 0n);
  }

  /** What the account (and key) could still reserve, for capping `max_tokens` to the funds. */
  spendable(accountId: string, keyId: string | null): Promise<bigint> {
    return readSpendable(this.context.store.db, accountId, keyId);
  }

  /** Releases reservations older than their bound; returns how many. Run at start and periodically. */
  async releaseExpired(): Promise<number> {
    const ids = await listExpiredReservations(this.context.store.db, this.context.clock.now().toISOString(), 500);
    for (const id of ids) {
      await this.context.store.db.transaction().execute((trx) =>
        settleReservation(trx, { reservationId: id, cost: 0n, ledgerId: this.context.createId('led'), createdAt: this.context.clock.now().toISOString() }),
      );
    }
    return ids.length;
  }
}
