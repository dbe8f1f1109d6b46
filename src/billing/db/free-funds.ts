import { sql, type RawBuilder } from 'kysely';

/**
 * The free-funds rule, written once: what an account, and a key with a spend limit, can still
 * reserve. Every statement that checks or reads free funds — the reserve check, growing a lease,
 * the books writers' locked reads, `readSpendable` — interpolates these texts, so a change of the
 * rule (budgets that reset, member limits) is made here and nowhere else.
 *
 * One text serves SQLite and PostgreSQL alike: columns of the row's own table (unqualified, so
 * the statement names the table), bigint subtraction in both, and a key without a limit
 * (`spend_limit` null) is null free in both. A rule that needs a dialect's own SQL splits the
 * constant here into one per dialect; `free-funds.test.ts` counts the copies in `src/`.
 *
 * The one copy outside: `switchyard_reserve_many`, PostgreSQL's reserve check, is a PL/pgSQL
 * function that migration `2026-11-25-1900-ordered-reserve-many` wrote into the database with
 * these texts spelled out (a migration is history and imports nothing of billing). The test holds
 * the function the database runs to these texts; a change of the rule replaces it in a new
 * migration.
 *
 * Each text is one arithmetic expression, which binds tighter than the comparisons it is used in.
 */
export const accountBalanceSql = 'total_credits - total_usage';

/** What the account can still reserve: its balance less what reservations and leases hold. */
export const accountFreeSql = `${accountBalanceSql} - reserved`;

/**
 * A key's free funds: null for a key without a spend limit. `period_usage` is what the limit
 * counts: what was charged since the key's period began (`limit_reset`, issue 49), and for a key
 * without a reset its lifetime `usage` (the books add every charge to both). The roll-over to a
 * new period (`db/key-periods.ts`) only ever lowers it, so a row not yet rolled reads as less free.
 */
export const keyFreeSql = 'spend_limit - period_usage - reserved';

/**
 * An account's balance (credits less usage, what `GET /v1/credits` shows), which the auto top-up's
 * and the alerts' thresholds compare with: what reservations hold is not spent and may come back.
 */
export const accountBalance: RawBuilder<bigint> = sql.raw<bigint>(accountBalanceSql);

/** `accountFreeSql` as a Kysely fragment. */
export const accountFree: RawBuilder<bigint> = sql.raw<bigint>(accountFreeSql);

/** `keyFreeSql` as a Kysely fragment. */
export const keyFree: RawBuilder<bigint | null> = sql.raw<bigint | null>(keyFreeSql);

/**
 * A member's free funds (issue 49): the key's rule over the membership row's own columns of the
 * same names — `spend_limit` (null: no member limit), `period_usage` (what the member's keys were
 * charged in the period) and `reserved` (what they hold), which a trigger on `api_keys` keeps
 * (migration 2026-12-07-2020). One text, so one rule: a key made by a member with a limit is
 * limited by both.
 */
export const memberFreeSql = keyFreeSql;

/** `memberFreeSql` as a Kysely fragment. */
export const memberFree: RawBuilder<bigint | null> = sql.raw<bigint | null>(memberFreeSql);
