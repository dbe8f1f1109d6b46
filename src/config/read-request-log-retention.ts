/** The fewest days `SWITCHYARD_REQUEST_LOG_RETENTION_DAYS` may keep (see below). */
export const minRetentionDays = 7;

/**
 * `SWITCHYARD_REQUEST_LOG_RETENTION_DAYS`: how many days of the request log to keep (whole days;
 * older rows are dropped by the request log maintenance, whole partitions on PostgreSQL, small
 * batches on SQLite). Unset or empty: kept forever, as before this setting existed — an upgrade
 * must never delete what an operator did not ask to delete; usage reports never depend on it (they
 * read the rollups, written with each row). At least 7: a media task settles its row under the id
 * its request got when it was accepted, which may be hours old, and a row whose day is already
 * dropped could not be written on PostgreSQL.
 */
export function readRequestLogRetentionDays(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const text = env.SWITCHYARD_REQUEST_LOG_RETENTION_DAYS?.trim();
  if (!text) return undefined;
  const days = Number(text);
  if (!Number.isInteger(days) || days < minRetentionDays) {
    throw new Error(`SWITCHYARD_REQUEST_LOG_RETENTION_DAYS must be a whole number of days, at least ${minRetentionDays}, got "${env.SWITCHYARD_REQUEST_LOG_RETENTION_DAYS}"`);
  }
  return days;
}
