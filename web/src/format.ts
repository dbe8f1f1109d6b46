const usdFormat = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 9 });
const integerFormat = new Intl.NumberFormat('en-US');

/** USD as the API gives it (a JSON number), to nano-dollar precision. */
export function formatUsd(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : usdFormat.format(value);
}

export function formatInteger(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : integerFormat.format(value);
}

/** The catalog's per-token decimal string as USD per 1M tokens, in decimal arithmetic (no float drift). */
export function perMillion(perToken: string | undefined): string {
  return perToken === undefined ? '—' : `$${shiftDecimal(perToken, 6)}`;
}

/** A per-unit decimal string (a search) as USD per 1,000 units, in decimal arithmetic. */
export function perThousand(perUnit: string | undefined): string {
  return perUnit === undefined ? '—' : `$${shiftDecimal(perUnit, 3)}`;
}

/** `value` × 10^places, on the decimal string itself. */
function shiftDecimal(value: string, places: number): string {
  const [whole, fraction = ''] = value.split('.');
  const shifted = `${whole}${fraction.padEnd(places, '0')}`;
  const integer = shifted.slice(0, whole.length + places).replace(/^0+(?=\d)/, '');
  const rest = fraction.slice(places).replace(/0+$/, '');
  return `${integer}${rest ? `.${rest}` : ''}`;
}

export function formatTime(iso: string | null | undefined): string {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—';
}

/** YYYY-MM-DD of a UTC day `daysAgo` before today. */
export function utcDay(daysAgo = 0): string {
  return new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
}

/**
 * One money format for a whole chart axis: the fewest decimals (at least 2, at most 9, the API's
 * nano-dollar precision) that show every tick exactly, so that "$0.0000", "$0.0004", "$0.0008"
 * stand together rather than "$0.0", "$0.00040", "$0.00080".
 */
export function axisUsdFormat(ticks: readonly number[]): (value: number) => string {
  // Chart.js steps are floats (0.0001 * 3 = 0.00030000000000000003): "exact" allows float noise, relative to the scaled value.
  const exactAt = (tick: number, decimals: number) => {
    const scaled = tick * 10 ** decimals;
    return Math.abs(scaled - Math.round(scaled)) <= 1e-9 * Math.max(1, Math.abs(scaled));
  };
  let decimals = 2;
  while (decimals < 9 && !ticks.every((tick) => exactAt(tick, decimals))) decimals += 1;
  const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  return (value) => format.format(value);
}
