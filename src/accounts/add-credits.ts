import type { AppContext } from '../app-context.js';
import { notFound } from '../errors/gateway-error.js';
import { creditAccount, findAccount, type AccountRecord } from '../store/repositories/accounts.js';

/** Credits an account through a ledger entry; returns the account as it stands afterwards. */
export async function addCredits(
  context: Pick<AppContext, 'store' | 'clock' | 'createId'>,
  accountId: string,
  amount: bigint,
  note: string | null = null,
): Promise<AccountRecord> {
  const now = context.clock.now().toISOString();
  await context.store.db.transaction().execute(async (trx) => {
    if (!(await findAccount(trx, accountId))) throw notFound(`Account '${accountId}'`);
    await creditAccount(trx, { ledgerId: context.createId('led'), accountId, amount, note, createdAt: now });
  });
  const account = await findAccount(context.store.db, accountId);
  if (!account) throw notFound(`Account '${accountId}'`);
  return account;
}
