import { nanoToUsd } from '../core/money.js';
import type { AlertsConfig } from '../config/types.js';
import { claimCrossing, listFiredCrossings, rearmCrossing, type CrossingKey } from './db/alert-states.js';
import { findLimitedKeys, findLimitedMembers, findLowBalances, type WatchedLimit } from './db/alert-settings.js';
import { limitPeriodKey, usageInPeriod, type LimitReset } from './limit-period.js';
import { raiseAlert, type AlertDependencies } from './raise-alert.js';
import type { AlertType } from './alert-types.js';
import { PeriodicRound } from '../store/periodic-round.js';

interface Condition {
  crossing: CrossingKey;
  holds: boolean;
  type: AlertType;
  data: Record<string, unknown>;
}

const keyOf = (crossing: CrossingKey) => [crossing.accountId, crossing.type, crossing.subject, crossing.level, crossing.period].join('\u0000');

/**
 * Finds crossings (low balance, key and member limits) every `alerts.check_ms` on each instance, and raises
 * each alert once per crossing.
 *
 * A sweep, like the auto top-up's, rather than a check after each charge: the request path
 * gains no statement and no branch. It reads the alert settings (one row per account that
 * configured alerts) joined by primary key to their accounts and limited keys, and the fired
 * states. A crossing is claimed by inserting its state row (one instance wins, whatever the
 * number of instances) and re-armed by deleting it once the condition no longer holds, so the
 * next crossing fires again. The price is a delay of up to one interval.
 */
export class AlertSweep {
  private readonly rounds: PeriodicRound;

  constructor(
    private readonly dependencies: AlertDependencies,
    private readonly settings: AlertsConfig,
  ) {
    this.rounds = new PeriodicRound({ name: 'alert sweep', intervalMs: settings.checkMs, first: 'spread', logger: dependencies.logger }, () => this.runOnce());
  }

  start(): void {
    this.rounds.start();
  }

  stop(): Promise<void> {
    return this.rounds.stop();
  }

  async runOnce(): Promise<void> {
    const { db } = this.dependencies.store;
    const now = this.dependencies.clock.now();
    const [lows, keys, members, fired] = await Promise.all([
      findLowBalances(db),
      findLimitedKeys(db),
      findLimitedMembers(db),
      listFiredCrossings(db, ['low_balance', 'key_limit', 'member_limit']),
    ]);
    const conditions: Condition[] = lows.map((account) => {
      const balance = account.credits - account.usage;
      return {
        crossing: { accountId: account.accountId, type: 'low_balance', subject: '', level: 0, period: '' },
        holds: balance < account.threshold,
        type: 'low_balance',
        data: { balance: nanoToUsd(balance), threshold: nanoToUsd(account.threshold) },
      };
    });
    for (const key of keys) conditions.push(...limitConditions('key_limit', key, now, (usage) => ({ key_id: key.subject, key_name: key.name, ...usage })));
    for (const member of members) conditions.push(...limitConditions('member_limit', member, now, (usage) => ({ user_id: member.subject, name: member.name, ...usage })));
    const firedKeys = new Set(fired.map(keyOf));
    const holding = new Set(conditions.filter((condition) => condition.holds).map((condition) => keyOf(condition.crossing)));
    // Re-arm what no longer holds: the balance is back, the limit or percent changed, the key is gone, the period passed.
    for (const crossing of fired) {
      if (!holding.has(keyOf(crossing))) await rearmCrossing(db, crossing);
    }
    for (const condition of conditions) {
      if (this.rounds.stopped) return;
      if (!condition.holds || firedKeys.has(keyOf(condition.crossing))) continue;
      await this.fire(condition, now.toISOString());
    }
  }

  private async fire(condition: Condition, now: string): Promise<void> {
    const { db } = this.dependencies.store;
    const id = this.dependencies.createId('alr');
    if (!(await claimCrossing(db, condition.crossing, id, now))) return;
    try {
      await raiseAlert(this.dependencies, { id, accountId: condition.crossing.accountId, type: condition.type, data: condition.data });
    } catch (error) {
      // Not raised: give the crossing back, so that the next sweep (here or elsewhere) raises it.
      this.dependencies.logger.warn({ err: error, accountId: condition.crossing.accountId, type: condition.type }, 'alert could not be raised; trying again at the next sweep');
      await rearmCrossing(db, condition.crossing).catch(() => undefined);
    }
  }
}

/**
 * One condition per configured percent of a key's or member's limit, in its current period (its
 * alert state's `period`): a limit that resets fires once per crossing per period, and again in
 * the next one.
 */
function limitConditions(type: 'key_limit' | 'member_limit', limit: WatchedLimit, now: Date, describe: (usage: Record<string, unknown>) => Record<string, unknown>): Condition[] {
  const period = limitPeriodKey(limit.limitReset as LimitReset, now);
  const usage = usageInPeriod(limit, period);
  return limit.percents.map((percent) => ({
    crossing: { accountId: limit.accountId, type, subject: limit.subject, level: percent, period },
    // Exact in nano-USD: usage / limit ≥ percent / 100.
    holds: usage * 100n >= BigInt(percent) * limit.limit,
    type,
    data: describe({ percent, usage: nanoToUsd(usage), limit: nanoToUsd(limit.limit), limit_reset: limit.limitReset, period: period || null }),
  }));
}
