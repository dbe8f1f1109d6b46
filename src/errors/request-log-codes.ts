import type { ErrorCode } from './error-codes.js';

/**
 * The request log's `error_code` beyond the client catalog. A row that ended in an answer to the
 * client carries the code the client got (`error-codes.ts`); these name the endings no client
 * answer describes. The strings are the "when" column of docs/operations.md's table (held against it by a test).
 */
export const logOnlyErrorCodes = {
  client_closed: 'the client closed the request before the answer ended',
  row_quarantined: 'the database refused the row even with its text made valid, so it was stored stripped to ASCII, without counts and without its optional fields',
  task_timeout: "the task did not finish, or the provider could not be reached, within the task's maximum age",
  provider_failed: 'the provider reported the task failed',
  submission_interrupted: 'the task was interrupted before the provider confirmed it',
} as const;

/** Every value the request log's `error_code` can hold. */
export type RequestLogErrorCode = ErrorCode | keyof typeof logOnlyErrorCodes;
