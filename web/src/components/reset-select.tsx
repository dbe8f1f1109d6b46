import { resetNames, type LimitReset } from '../limit-period.js';

/** The limit's reset period: none (a lifetime total), daily, weekly or monthly (00:00 UTC; Monday; the 1st). */
export function ResetSelect({ value, onChange }: { value: LimitReset; onChange: (reset: LimitReset) => void }) {
  return (
    <label>
      Limit resets
      <select value={value ?? ''} onChange={(event) => onChange(((event.target as HTMLSelectElement).value || null) as LimitReset)}>
        <option value="">Never (a lifetime total)</option>
        {(['daily', 'weekly', 'monthly'] as const).map((reset) => (
          <option key={reset} value={reset}>
            {resetNames[reset]}
          </option>
        ))}
      </select>
    </label>
  );
}
