import type pg from 'pg';

/** What the books say after a run; `exact` when every sum agrees and nothing is overspent or held. */
export interface BooksCheck {
  exact: boolean;
  accounts: number;
  charges: string;
  requestCosts: string;
  rollupCosts: string;
  totalUsage: string;
  creditsMinusBalance: string;
  uncollected: string;
  /** Reservation rows left open once the instances are stopped: any is a leak (an instance's lease not given back, a reservation never ended). */
  openReservations: number;
  negativeBalances: number;
  /** Scale-out targets: lease rows held while the instances ran (by design, not a leak). */
  liveLeases?: number;
  /** Scale-out targets: while they ran, Σ reservation rows = Σ accounts' `reserved`. */
  liveReservedAgrees?: boolean;
  /** Scale-out targets: instances that did not exit on their own when stopped (their leases then wait for a sweep). */
  killedInstances?: number;
}

/**
 * The books of `accountIds` in the PostgreSQL schema `schema`, once the settlements still in
 * flight have committed: Σ ledger charges = Σ request-log costs = Σ usage rollups = Σ total
 * usage, credits granted = credits on the accounts, no reservation open, no balance below zero.
 * Shared by the benchmark's scale-out targets and the load tests of test/load.
 */
export async function checkBooks(admin: pg.Client, schema: string, accountIds: string[]): Promise<BooksCheck> {
  // Settlements in flight when the load ended commit within a batch or two.
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const open = await admin.query(`select count(*)::int as n from "${schema}".reservations`);
    if (open.rows[0].n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const ids = accountIds;
  const one = async (text: string) => BigInt((await admin.query(text, [ids])).rows[0].total ?? 0);
  const charges = await one(`select coalesce(sum(amount), 0)::text as total from "${schema}".ledger_entries where kind = 'charge' and account_id = any($1)`);
  const uncollected = await one(`select coalesce(sum(amount), 0)::text as total from "${schema}".ledger_entries where kind = 'uncollected' and account_id = any($1)`);
  const requestCosts = await one(`select coalesce(sum(cost), 0)::text as total from "${schema}".requests where account_id = any($1)`);
  const rollupCosts = await one(`select coalesce(sum(cost), 0)::text as total from "${schema}".usage_rollups where account_id = any($1)`);
  const totalUsage = await one(`select coalesce(sum(total_usage), 0)::text as total from "${schema}".accounts where id = any($1)`);
  const creditsMinusBalance = await one(`select coalesce(sum(total_usage), 0)::text as total from "${schema}".accounts where id = any($1)`);
  const credited = await one(`select coalesce(sum(amount), 0)::text as total from "${schema}".ledger_entries where kind = 'credit' and account_id = any($1)`);
  const credits = await one(`select coalesce(sum(total_credits), 0)::text as total from "${schema}".accounts where id = any($1)`);
  const open = (await admin.query(`select count(*)::int as n from "${schema}".reservations`)).rows[0].n as number;
  const negative = (await admin.query(`select count(*)::int as n from "${schema}".accounts where total_credits - total_usage - reserved < 0 and id = any($1)`, [ids])).rows[0].n as number;
  const exact = charges === requestCosts && charges === rollupCosts && charges === totalUsage && credited === credits && credits - creditsMinusBalance === credits - charges && open === 0 && negative === 0;
  return {
    exact,
    accounts: ids.length,
    charges: charges.toString(),
    requestCosts: requestCosts.toString(),
    rollupCosts: rollupCosts.toString(),
    totalUsage: totalUsage.toString(),
    creditsMinusBalance: creditsMinusBalance.toString(),
    uncollected: uncollected.toString(),
    openReservations: open,
    negativeBalances: negative,
  };
}
