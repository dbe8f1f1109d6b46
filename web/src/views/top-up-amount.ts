/** Whole cents of a typed amount ("12.5" → 1250), or null: the page compares money in integers, never floats. */
export function parseCents(text: string): number | null {
  const match = /^(\d{1,7})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}
