import type { AppContext } from '../app-context.js';
import { operatorSource, type AuditSource } from '../audit/audit-source.js';
import { recordAudit } from '../audit/record-audit.js';
import { creditAccount, insertAccount, type AccountRecord, findAccount } from '../store/repositories/accounts.js';
import { createApiKey } from './create-api-key.js';
import { nanoToUsd } from '../core/money.js';

/**
 * Creates an account, its first management key, and (optionally) an opening credit — one
 * transaction, so a failure leaves nothing behind. The key and the credit are each written to
 * the audit log in the same transaction. Returns the key in clear text, once.
 */
export async function createAccount(
  context: Pick<AppContext, 'store' | 'clock' | 'createId'>,
  input: { name?: string; credits?: bigint },
  source: AuditSource = operatorSource,
): Promise<{ account: AccountRecord; key: string }> {
  const accountId = context.createId('acc');
  const now = context.clock.now().toISOString();
  const entry = { accountId, at: now, actor: source.actor, ip: source.ip };
  const key = await context.store.db.transaction().execute(async (trx) => {
    await insertAccount(trx, { id: accountId, name: input.name ?? 'default', createdAt: now });
    if (input.credits !== undefined && input.credits > 0n) {
      const ledgerId = context.createId('led');
      await creditAccount(trx, { ledgerId, accountId, amount: input.credits, note: 'opening credit', createdAt: now });
      await recordAudit(trx, { ...entry, id: context.createId('aud'), action: 'money.grant', target: ledgerId, details: { amount: nanoToUsd(input.credits), note: 'opening credit' } });
    }
    const created = await createApiKey(trx, context, { accountId, name: 'management', management: true });
    await recordAudit(trx, { ...entry, id: context.createId('aud'), action: 'key.create', target: created.record.id, details: { name: created.record.name, management: true } });
    return created;
  });
  const account = await findAccount(context.store.db, accountId);
  if (!account) throw new Error('account vanished after creation');
  return { account, key: key.secret };
}
