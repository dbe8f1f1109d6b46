import type { AppContext } from '../app-context.js';
import { operatorSource, type AuditSource } from '../audit/audit-source.js';
import { recordAudit } from '../audit/record-audit.js';
import { nanoToUsd } from '../core/money.js';
import { notFound } from '../errors/gateway-error.js';
import { creditAccount, findAccount, type AccountRecord } from '../store/repositories/accounts.js';

/**
 * Credits an account through a ledger entry (an operator's grant), written to the audit log as
 * `money.grant` in the same transaction; returns the account as it stands afterwards.
 */
export async function addCredits(
  context: Pick<AppContext, 'store' | 'clock' | 'createId'>,
  accountId: string,
  amount: bigint,
  note: string | null = null,
  source: AuditSource = operatorSource,
): Promise<AccountRecord> {
  const now = context.clock.now().toISOString();
  await context.store.db.transaction().execute(async (trx) => {
    if (!(await findAccount(trx, accountId))) throw notFound(`Account '${accountId}'`);
    const ledgerId = context.createId('led');
    await creditAccount(trx, { ledgerId, accountId, amount, note, createdAt: now });
    await recordAudit(trx, { id: context.createId('aud'), accountId, at: now, actor: source.actor, action: 'money.grant', target: ledgerId, ip: source.ip, details: { amount: nanoToUsd(amount), note } });
  });
  const account = await findAccount(context.store.db, accountId);
  if (!account) throw notFound(`Account '${accountId}'`);
  return account;
}
