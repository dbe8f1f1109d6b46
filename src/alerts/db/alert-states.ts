import type { Kysely } from 'kysely';
import type { Database } from '../../store/database.js';

/** One crossing: which alert, about what, at which level, in which period ('' for a lifetime limit). */
export interface CrossingKey {
  accountId: string;
  type: string;
  subject: string;
  level: number;
  period: string;
}

/**
 * Claims a crossing: inserts its state row unless one exists. True for the one caller (of any
 * instance) that inserted it, which then raises the alert; false for everyone else.
 */
export async function claimCrossing(db: Kysely<Database>, crossing: CrossingKey, alertId: string, now: string): Promise<boolean> {
  const result = await db
    .insertInto('alert_states')
    .values({ account_id: crossing.accountId, type: crossing.type, subject: crossing.subject, level: crossing.level, period: crossing.period, alert_id: alertId, fired_at: now })
    .onConflict((conflict) => conflict.columns(['account_id', 'type', 'subject', 'level', 'period']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** The crossings of the given types that have fired and not been re-armed. */
export async function listFiredCrossings(db: Kysely<Database>, types: string[]): Promise<CrossingKey[]> {
  const rows = await db.selectFrom('alert_states').select(['account_id', 'type', 'subject', 'level', 'period']).where('type', 'in', types).execute();
  return rows.map((row) => ({ accountId: row.account_id, type: row.type, subject: row.subject, level: Number(row.level), period: row.period }));
}

/** Re-arms a crossing: the next time the condition holds, the alert fires again. */
export async function rearmCrossing(db: Kysely<Database>, crossing: CrossingKey): Promise<void> {
  await db
    .deleteFrom('alert_states')
    .where('account_id', '=', crossing.accountId)
    .where('type', '=', crossing.type)
    .where('subject', '=', crossing.subject)
    .where('level', '=', crossing.level)
    .where('period', '=', crossing.period)
    .execute();
}
