import type { Kysely } from 'kysely';
import type { Database } from '../../store/database.js';
import { sumUsage, type UsageSum } from '../../billing/db/usage-rollups.js';
import { sumUsageSummaries, type SummaryGrouping } from '../../billing/db/usage-summaries.js';
import { dayMs, decodeDayRange, formatUtcDay, startOfUtcDay } from '../shared/decode-date-range.js';
import { nanoToUsd } from '../../core/money.js';
import { sumCacheSavings, type CacheSavingSum } from '../../cache/db/cache-savings.js';
import { encodeKeyRows, encodeUsageRow, encodeUsageRows, totalOf } from './encode-usage.js';

const defaultDays = 30;
const maxDays = 366;

/**
 * The `/usage` answer (docs/api-decisions.md §5, docs/usage-reports.md) for one account,
 * optionally one key, over `?from=&to=` (default: the last 30 UTC days up to today). The
 * account's report is read from the summaries, whose rows grow with the days and the answer, not
 * with keys × models × days; one key's from its own detailed rollups (days × its models ×
 * providers, whatever the account's size). Shared by `GET /v1/usage`, the admin API and the CLI
 * so that all three report the same figures.
 */
export async function buildUsageReport(
  db: Kysely<Database>,
  scope: { accountId: string; keyId?: string; nowMs: number },
  query: { from?: string; to?: string },
): Promise<Record<string, unknown>> {
  const today = startOfUtcDay(scope.nowMs);
  const range = decodeDayRange(query, { to: today, from: (toMs) => toMs - (defaultDays - 1) * dayMs }, maxDays);
  const filter = { accountId: scope.accountId, keyId: scope.keyId, from: formatUtcDay(range.startMs), to: formatUtcDay(range.endMs - dayMs) };
  const sum = (grouping: SummaryGrouping): Promise<UsageSum[]> =>
    filter.keyId === undefined ? sumUsageSummaries(db, filter, grouping) : sumUsage(db, filter, grouping);
  const [byDay, byModel, byProvider, byKey, savings] = await Promise.all([sum('day'), sum('model'), sum('provider'), sum('key_id'), sumCacheSavings(db, filter)]);
  return {
    total: encodeUsageRow(totalOf(byDay)),
    by_day: encodeUsageRows(byDay, 'day'),
    by_model: encodeUsageRows(byModel, 'model'),
    by_provider: encodeUsageRows(byProvider, 'provider'),
    by_key: encodeKeyRows(byKey),
    // What the response cache saved (contract §9): its hits and the stored cost they were not
    // charged, in total and per day with hits, from its own small table (a row per account, day
    // and key); an object apart, so the rows above keep their shape.
    cache: encodeCacheSavings(savings),
  };
}

function encodeCacheSavings(savings: CacheSavingSum[]): Record<string, unknown> {
  let hits = 0;
  let saved = 0n;
  for (const saving of savings) {
    hits += saving.hits;
    saved += saving.saved;
  }
  return { hits, savings: nanoToUsd(saved), by_day: savings.map((saving) => ({ day: saving.day, hits: saving.hits, savings: nanoToUsd(saving.saved) })) };
}
