import type { Store } from '../store/create-store.js';
import { rollKeyPeriodsPostgres, rollKeyPeriodsSqlite } from './db/key-periods.js';
import { rollMemberPeriodsPostgres, rollMemberPeriodsSqlite } from './db/member-periods.js';
import { periodStarts } from './limit-periods.js';

const dayMs = 24 * 60 * 60 * 1000;

interface RollState {
  /** The UTC day (days since the epoch) this instance last rolled the keys' periods to. */
  day: number;
  rolling: Promise<void> | undefined;
  rollingDay: number;
}

const states = new WeakMap<object, RollState>();

/**
 * Key and member limits that reset (issue 49): before this instance's first charge, reservation
 * or grant of a new UTC day, every key and member whose period ended starts its new one
 * (`rollKeyPeriods*`, one statement; `rollMemberPeriods*`). Undefined — nothing to do, no statement — on every other call, which is the hot
 * path's whole cost: one comparison. Every period (daily, weekly, monthly) starts at a day's
 * start, so one roll per day covers the three.
 *
 * Why before the charges: a charge written after the boundary but before the roll would be
 * zeroed by it and its new period could be charged the limit again. The books writer awaits
 * this before each batch (`writeBooks`), so every charge this instance writes after it crossed
 * a boundary lands in the new period. Instances whose clocks disagree each roll at their own
 * midnight; the statement only ever moves a key's period forward, so the second is a no-op.
 * Before a roll, a key reads as less free, never more (the roll only lowers `period_usage`).
 */
export function keyPeriodsDue(store: Pick<Store, 'pool' | 'sqlite'>, now: Date): Promise<void> | undefined {
  const owner = store.pool ?? store.sqlite!;
  const day = Math.floor(now.getTime() / dayMs);
  let state = states.get(owner);
  if (!state) {
    state = { day: Number.NaN, rolling: undefined, rollingDay: Number.NaN };
    states.set(owner, state);
  }
  if (state.day === day) return undefined;
  if (state.rolling && state.rollingDay === day) return state.rolling;
  const starts = periodStarts(now);
  const previous = state.rolling ?? Promise.resolve();
  const rolling: Promise<void> = previous
    .catch(() => undefined)
    .then(() => roll(store, starts))
    .then(
      () => {
        state.day = day;
      },
    )
    .finally(() => {
      if (state.rolling === rolling) state.rolling = undefined;
    });
  state.rolling = rolling;
  state.rollingDay = day;
  return rolling;
}

async function roll(store: Pick<Store, 'pool' | 'sqlite'>, starts: ReturnType<typeof periodStarts>): Promise<void> {
  if (store.pool) {
    await rollKeyPeriodsPostgres(store.pool, starts);
    await rollMemberPeriodsPostgres(store.pool, starts);
    return;
  }
  const database = store.sqlite!;
  // A Kysely transaction holds SQLite's one connection across awaits (the task engine's): wait for it.
  while (database.inTransaction) await new Promise((resolve) => setTimeout(resolve, 1));
  rollKeyPeriodsSqlite(database, starts);
  rollMemberPeriodsSqlite(database, starts);
}
