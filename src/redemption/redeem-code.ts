import type { AppContext } from '../app-context.js';
import type { AuditSource } from '../audit/audit-source.js';
import { recordAudit } from '../audit/record-audit.js';
import { postMovement } from '../billing/db/post-movement.js';
import { MAX_NANO, nanoToUsd } from '../core/money.js';
import { GatewayError, invalidRequest, notFound } from '../errors/gateway-error.js';
import { findAccount, type AccountRecord } from '../store/repositories/accounts.js';
import { retryOnConflict } from '../store/retry-conflicts.js';
import { hashCode, normalizeCode } from './code-text.js';

/** More than this many wrong codes per account within `failureWindowMs` is refused (contract §7). */
export const maxFailures = 5;
export const failureWindowMs = 10 * 60 * 1000;

/** One message for a wrong, used and expired code: the answer must not tell which. */
const invalidCodeMessage = 'This code is not valid: it may be mistyped, already used or expired';

type Attempt = { outcome: 'redeemed'; amount: bigint } | { outcome: 'invalid' } | { outcome: 'limited'; retryAfterS: number };

/**
 * Redeems a code for the account: its amount is posted to the ledger and the credits, once. The
 * code is spent by one conditional UPDATE (not redeemed, batch not expired) in the same
 * transaction as the ledger entry, so under any number of attempts on any number of instances it
 * is spent once and credited once. The attempt first takes the account's guard row, so the
 * account's attempts run one at a time and the count of its recent failures is exact: the sixth
 * wrong code in ten minutes, and any code after it until the oldest failure leaves the window,
 * is 429. The credit's `money.redemption` audit entry commits with it (the batch, never the code).
 */
export async function redeemCode(
  context: Pick<AppContext, 'store' | 'clock' | 'createId'>,
  accountId: string,
  text: string,
  source: AuditSource,
): Promise<{ amount: bigint; account: AccountRecord }> {
  const { db } = context.store;
  const now = context.clock.now();
  const nowIso = now.toISOString();
  const windowStart = new Date(now.getTime() - failureWindowMs).toISOString();
  const normalized = normalizeCode(text);
  const hash = normalized === undefined ? undefined : hashCode(normalized);

  const attempt = await retryOnConflict(() =>
    db.transaction().execute(async (trx): Promise<Attempt> => {
      await trx
        .insertInto('redemption_guards')
        .values({ account_id: accountId, last_attempt_at: nowIso })
        .onConflict((conflict) => conflict.column('account_id').doUpdateSet({ last_attempt_at: nowIso }))
        .execute();
      await trx.deleteFrom('redemption_failures').where('account_id', '=', accountId).where('at', '<=', windowStart).execute();
      const failures = await trx.selectFrom('redemption_failures').select('at').where('account_id', '=', accountId).orderBy('at').execute();
      if (failures.length >= maxFailures) {
        const freesAt = Date.parse(failures[0].at) + failureWindowMs;
        return { outcome: 'limited', retryAfterS: Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000)) };
      }
      if (hash !== undefined) {
        const spent = await trx
          .updateTable('redemption_codes')
          .set({ redeemed_at: nowIso, redeemed_account_id: accountId })
          .where('hash', '=', hash)
          .where('redeemed_at', 'is', null)
          .where((eb) =>
            eb(
              'batch_id',
              'in',
              eb
                .selectFrom('redemption_batches')
                .select('id')
                .where((batch) => batch.or([batch('expires_at', 'is', null), batch('expires_at', '>', nowIso)])),
            ),
          )
          .returning('batch_id')
          .executeTakeFirst();
        if (spent) {
          const batch = await trx.selectFrom('redemption_batches').select('amount').where('id', '=', spent.batch_id).executeTakeFirstOrThrow();
          const amount = BigInt(batch.amount);
          // Credits live in a 64-bit column (as for an operator's grant): a credit past it is
          // refused, and the throw rolls the spending back, so the code stays good.
          const account = await findAccount(trx, accountId);
          if (account && account.totalCredits + amount > MAX_NANO) {
            throw invalidRequest(`This code would take the account's total credits above ${nanoToUsd(MAX_NANO)} USD, the most it can hold`, 'code');
          }
          const ledgerId = context.createId('led');
          const posted = await postMovement(trx, {
            id: ledgerId,
            accountId,
            kind: 'redemption',
            amount,
            reference: `redemption:${hash}`,
            note: `redemption code of batch ${spent.batch_id}`,
            createdAt: nowIso,
          });
          // The code's row and its reference are written together, so this cannot be false; if it
          // were, the UPDATE is rolled back with the rest rather than spending an uncredited code.
          if (!posted) throw new Error(`redemption ${hash} was already posted although its code was unspent`);
          const details = { amount: nanoToUsd(amount), batch_id: spent.batch_id };
          await recordAudit(trx, { id: context.createId('aud'), accountId, at: nowIso, actor: source.actor, action: 'money.redemption', target: ledgerId, ip: source.ip, details });
          return { outcome: 'redeemed', amount };
        }
      }
      await trx.insertInto('redemption_failures').values({ id: context.createId('rdf'), account_id: accountId, at: nowIso }).execute();
      return { outcome: 'invalid' };
    }),
  );

  if (attempt.outcome === 'limited') {
    throw new GatewayError('rate_limited', `Too many wrong codes: at most ${maxFailures} in ${failureWindowMs / 60_000} minutes; try again in ${attempt.retryAfterS} s`, {
      headers: { 'retry-after': String(attempt.retryAfterS) },
    });
  }
  if (attempt.outcome === 'invalid') throw invalidRequest(invalidCodeMessage, 'code');
  const account = await findAccount(db, accountId);
  if (!account) throw notFound('Account');
  return { amount: attempt.amount, account };
}
