/** Row value conversions shared by the repositories (SQLite returns bigints, PostgreSQL int4 numbers). */
export function toNumber(value: number | bigint | null | undefined): number {
  return value === null || value === undefined ? 0 : Number(value);
}

export function toBigInt(value: number | bigint | string | null | undefined): bigint {
  return value === null || value === undefined ? 0n : BigInt(value);
}

export function toBoolean(value: number | bigint | boolean | null | undefined): boolean {
  return value === true || value === 1 || value === 1n;
}
