/**
 * Errors that mean the database cannot answer now (lost or refused connection, a timeout, a
 * server shutting down, too many connections, a busy SQLite file): the request gets 503
 * `service_unavailable` and may be retried; nothing about them is the client's fault.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    // 08: connection exception; 57P01-03: shutdown / cannot connect now; 57014: statement
    // timeout (canceled); 53300: too many connections; 40001/40P01: serialization / deadlock.
    if (/^(08|57P0[123]$|57014$|53300$|40001$|40P01$)/.test(code)) return true;
    if (/^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|SQLITE_BUSY)/.test(code)) return true;
  }
  return /Connection terminated|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|connect ECONNREFUSED|Client was closed|Cannot use a pool after calling end/.test(error.message);
}

/**
 * The database cannot be reached or does not answer in time (the connection-class part of
 * `isDatabaseUnavailable`): what an outage is made of. A deadlock or serialization failure is
 * an answer, retried where it happens, not an outage.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return isDatabaseUnavailable(error) && code !== '40001' && code !== '40P01';
}

/** PostgreSQL refused a value for its bytes (NUL, an invalid byte sequence): a data fault, not the database's. */
export function isInvalidTextError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '22021' || code === '22P05';
}

/**
 * PostgreSQL's invalid_schema_name, undefined_table and undefined_column: a name another session
 * dropped while a statement read it (Kysely's listing of every schema's tables, `migrateToLatest`).
 */
export function isDroppedMeanwhile(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '3F000' || code === '42P01' || code === '42703';
}

/** A unique index or primary key refused a second row (PostgreSQL 23505, SQLite's constraint codes). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
