import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coverDays, monthOf, weekOf, type Grain } from './summarize-usage.js';

const dayMs = 86_400_000;
const formatDay = (milliseconds: number) => new Date(milliseconds).toISOString().slice(0, 10);

/** The days a period of `grain` starting on `first` spans. */
function daysOf(grain: Grain, first: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${first}T00:00:00Z`); ; at += dayMs) {
    const day = formatDay(at);
    const inside = grain === 'day' ? day === first : grain === 'week' ? weekOf(day) === first : monthOf(day) === first;
    if (!inside) return days;
    days.push(day);
  }
}

describe('coverDays', () => {
  const range = fc.tuple(fc.integer({ min: 0, max: 3 * 366 }), fc.integer({ min: 1, max: 366 })).map(([start, length]) => {
    const from = Date.UTC(2024, 0, 1) + start * dayMs;
    return { from: formatDay(from), to: formatDay(from + (length - 1) * dayMs), length };
  });

  it('covers exactly the days of any range up to 366 days, with at most five runs, each of whole periods', () => {
    for (const grains of [new Set<Grain>(['day']), new Set<Grain>(['day', 'month']), new Set<Grain>(['day', 'week', 'month'])]) {
      fc.assert(
        fc.property(range, ({ from, to, length }) => {
          const runs = coverDays(from, to, grains);
          expect(runs.length).toBeLessThanOrEqual(5);
          const covered: string[] = [];
          for (const run of runs) {
            expect(grains.has(run.grain)).toBe(true);
            // A run names consecutive periods of its grain: walk them from its first to its last.
            for (let first = run.first; ; ) {
              const days = daysOf(run.grain, first);
              covered.push(...days);
              if (first === run.last) break;
              first = formatDay(Date.parse(`${days[days.length - 1]}T00:00:00Z`) + dayMs);
              if (first > run.last) throw new Error(`run ${JSON.stringify(run)} does not end on a period start`);
            }
          }
          expect(covered.length).toBe(length);
          expect(covered[0]).toBe(from);
          expect(covered[covered.length - 1]).toBe(to);
          const gaps = covered.filter((day, index) => index > 0 && Date.parse(day) - Date.parse(covered[index - 1]) !== dayMs);
          expect(gaps).toEqual([]);
        }),
        { numRuns: 100 },
      );
    }
  });

  it('reads a bounded number of periods: for keys (days, weeks, months) at most 29 for any range of a year, and 4 for the default 30 days at most 12', () => {
    const periodsOf = (from: string, to: string) => {
      let count = 0;
      for (const run of coverDays(from, to, new Set<Grain>(['day', 'week', 'month']))) {
        for (let first = run.first; ; ) {
          count += 1;
          if (first === run.last) break;
          first = formatDay(Date.parse(`${daysOf(run.grain, first).at(-1)!}T00:00:00Z`) + dayMs);
        }
      }
      return count;
    };
    let worstYear = 0;
    let worstMonth = 0;
    for (let start = Date.UTC(2025, 0, 1); start < Date.UTC(2027, 0, 1); start += dayMs) {
      worstYear = Math.max(worstYear, periodsOf(formatDay(start), formatDay(start + 365 * dayMs)));
      worstMonth = Math.max(worstMonth, periodsOf(formatDay(start), formatDay(start + 29 * dayMs)));
    }
    expect(worstYear).toBeLessThanOrEqual(29);
    expect(worstMonth).toBeLessThanOrEqual(12);
  });

  it('names weeks of a month by their first day, the last week running to the month end', () => {
    expect(['2026-02-01', '2026-02-07', '2026-02-08', '2026-02-21', '2026-02-22', '2026-02-28'].map(weekOf)).toEqual([
      '2026-02-01', '2026-02-01', '2026-02-08', '2026-02-15', '2026-02-22', '2026-02-22',
    ]);
    expect(coverDays('2026-01-22', '2026-03-07', new Set<Grain>(['day', 'week', 'month']))).toEqual([
      { grain: 'week', first: '2026-01-22', last: '2026-01-22' },
      { grain: 'month', first: '2026-02-01', last: '2026-02-01' },
      { grain: 'week', first: '2026-03-01', last: '2026-03-01' },
    ]);
  });
});
