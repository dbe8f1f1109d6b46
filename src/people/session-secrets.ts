import { createHash, createHmac, randomBytes } from 'node:crypto';
import { secretsEqual } from '../auth/api-key-format.js';

/** The page's session cookie (contract §7). */
export const sessionCookieName = 'sy_session';

/** 256 random bits, URL-safe: a session token, a magic link's token, an OIDC state. */
export function createSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** What the store keeps of a secret: its SHA-256, hex. A leaked table names no live session. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/**
 * The session's CSRF token, derived from its cookie token rather than stored: a page script of
 * the same origin reads it from `GET /auth/session`, a cross-site form cannot, and a copy of the
 * sessions table (which holds only hashes) does not yield it.
 */
export function csrfTokenOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('switchyard csrf token').digest('base64url');
}

/** Whether `presented` is the session's CSRF token, compared in constant time. */
export function csrfTokenMatches(sessionToken: string, presented: string | string[] | undefined): boolean {
  return typeof presented === 'string' && presented !== '' && secretsEqual(presented, csrfTokenOf(sessionToken));
}

/** Reads the `sy_session` value from a Cookie header without parsing every cookie in it. */
export function readSessionCookie(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0 || part.slice(0, separator).trim() !== sessionCookieName) continue;
    const value = part.slice(separator + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}
