import { formatTime, formatUsd } from '../format.js';
import { nextReset, type LimitReset } from '../limit-period.js';

/**
 * A limit's progress: what the current period (or, without a reset, the key's whole life) has
 * used against the limit, with when it starts again.
 */
export function LimitBar({ used, limit, reset, label }: { used: number; limit: number; reset: LimitReset; label: string }) {
  const share = limit > 0 ? Math.min(1, Math.max(0, used / limit)) : 1;
  const percent = Math.round(share * 100);
  const period = reset === 'daily' ? 'today' : reset === 'weekly' ? 'this week' : reset === 'monthly' ? 'this month' : 'in total';
  return (
    <div class="limit-bar">
      <div class={`bar${share >= 1 ? ' full' : share >= 0.8 ? ' high' : ''}`} role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
        <span style={{ width: `${percent}%` }} />
      </div>
      <p class="muted" data-testid="limit-bar-text">
        {formatUsd(used)} of {formatUsd(limit)} used {period} ({percent}%){reset && ` · resets ${formatTime(nextReset(reset).toISOString())}`}
      </p>
    </div>
  );
}
