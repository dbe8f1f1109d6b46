import type { AppContext } from '../app-context.js';
import { creditAccount, insertAccount, type AccountRecord, findAccount } from '../store/repositories/accounts.js';
import { createApiKey } from './create-api-key.js';

/**
 * Creates an account, its first management key, and (optionally) an opening credit — one
 * transaction, so a failure leaves nothing behind. Returns the key in clear text, once.
 */
export async function createAccount(
  context: Pick<AppContext, 'store' | 'clock' | 'createId'>,
  input: { name?: string; credits?: bigint },
): Promise<{ account: AccountRecord; key: string }> {
  const accountId = context.createId('acc');
  const now = context.clock.now().toISOString();
  const key = await context.store.db.transaction().execute(async (trx) => {
    await insertAccount(trx, { id: accountId, name: input.name ?? 'default', createdAt: now });
    if (input.credits !== undefined && input.credits > 0n) {
      await creditAccount(trx, { ledgerId: context.createId('led'), accountId, amount: input.credits, note: 'opening credit', createdAt: now });
    }
    return createApiKey(trx, context, { accountId, name: 'management', management: true });
  });
  const account = await findAccount(context.store.db, accountId);
  if (!account) throw new Error('account vanished after creation');
  return { account, key: key.secret };
}
