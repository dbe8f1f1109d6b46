import { ApiError } from './api.js';

/** Why a sign-in was refused: the server's `metadata.reason` on its 403 (`signup_closed`, `invite_only`, `email_domain_not_allowed`). */
function reasonOf(error: unknown): string {
  return error instanceof ApiError && typeof error.metadata.reason === 'string' ? error.metadata.reason : '';
}

/** Whether the server refused because nobody new may sign up here (§7 `signup.mode: closed` or `invite`). */
export function isClosedSignUp(error: unknown): boolean {
  const reason = reasonOf(error);
  return reason === 'signup_closed' || reason === 'invite_only';
}

/**
 * The words a person reads for a refused sign-in, or null: the server's own message, which names
 * the cause (the invite, the allowed domains, a stale Telegram login).
 */
export function describeSignInError(error: unknown): string | null {
  if (error === undefined || error === null) return null;
  if (error instanceof ApiError) return error.message;
  return 'Something went wrong while signing in. Try again.';
}
