import { ApiError } from './api.js';

/** A sign-in the server refused at its callback (OIDC, magic link) and reported in `?error=`. */
export class SignInRefusal extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

const closedSignUp =
  'Sign-up is closed on this gateway: only people who already have an account can sign in. Ask the operator for an invite, or sign in with the address you signed up with.';

const refusals: Record<string, string> = {
  signup_closed: closedSignUp,
  sign_up_closed: closedSignUp,
  invite_required: 'This gateway admits new people by invite only. Open the invite link you were sent, then sign in.',
  email_not_verified: 'Your sign-in provider did not confirm your email address, so it cannot be used here.',
  email_domain_not_allowed: 'Sign-up is limited to some email domains, and this address is not in one of them.',
  link_expired: 'This sign-in link has expired or was already used. Ask for a new one below.',
  invalid_token: 'This sign-in link has expired or was already used. Ask for a new one below.',
};

/** Whether the server refused because nobody may sign up (§7 `signup.mode: closed` or `invite`). */
export function isClosedSignUp(error: unknown): boolean {
  const code = error instanceof ApiError || error instanceof SignInRefusal ? error.code : '';
  return code === 'signup_closed' || code === 'sign_up_closed' || code === 'invite_required';
}

/** The words a person reads for a refused sign-in; null when there is nothing to say. */
export function describeSignInError(error: unknown): string | null {
  if (error === undefined || error === null) return null;
  if (error instanceof SignInRefusal) return refusals[error.code] ?? `Sign-in did not complete (${error.code}). Try again.`;
  if (error instanceof ApiError) return refusals[error.code] ?? error.message;
  return 'Something went wrong while signing in. Try again.';
}
