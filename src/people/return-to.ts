/**
 * Where a sign-in may send the browser afterwards: a path of this origin only (`/x?y`), so that
 * a link of ours cannot forward a signed-in user to another site (an open redirect). Refused,
 * and replaced by `/`: absolute URLs, scheme-relative `//host`, `/\host` (browsers read `\` as
 * `/`), control characters and white space (which browsers strip before parsing), and anything
 * that does not resolve to this origin.
 */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2000) return '/';
  if (!value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return '/';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f-\u00a0\u2028\u2029]/.test(value)) return '/';
  const base = 'https://origin.invalid';
  let resolved: URL;
  try {
    resolved = new URL(value, base);
  } catch {
    return '/';
  }
  if (resolved.origin !== base) return '/';
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
