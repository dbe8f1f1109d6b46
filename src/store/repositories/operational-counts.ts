import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';

/** Counts for the operator's metrics, over every account and instance. */

/**
 * Open reservation rows, split into requests' own and fund leases (docs/leases.md): a lease row is
 * its own request (`request_id = id`), held by its instance while it runs, so it is not a
 * reservation left open.
 */
export async function countOpenReservations(db: Kysely<Database>): Promise<{ requests: number; leases: number }> {
  const row = await db
    .selectFrom('reservations')
    .select([
      sql<string | number | null>`sum(case when id = request_id then 0 else 1 end)`.as('requests'),
      sql<string | number | null>`sum(case when id = request_id then 1 else 0 end)`.as('leases'),
    ])
    .executeTakeFirst();
  return { requests: Number(row?.requests ?? 0), leases: Number(row?.leases ?? 0) };
}

export async function countTasksByStatus(db: Kysely<Database>): Promise<Array<{ status: string; count: number }>> {
  const rows = await db.selectFrom('tasks').select(['status', sql<string | number>`count(*)`.as('count')]).groupBy('status').execute();
  return rows.map((row) => ({ status: row.status, count: Number(row.count) }));
}

export async function sumAllUncollected(db: Kysely<Database>): Promise<bigint> {
  const row = await db
    .selectFrom('ledger_entries')
    .select(sql<string | bigint | null>`sum(amount)`.as('total'))
    .where('kind', '=', 'uncollected')
    .executeTakeFirst();
  return BigInt(row?.total ?? 0);
}
