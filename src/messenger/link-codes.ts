import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import { notFound } from '../errors/gateway-error.js';
import { findAccount } from '../store/repositories/accounts.js';
import { upsertLinkCode } from '../store/repositories/link-codes.js';

/** Long enough to open the link from another device, short enough that a leaked code soon dies. */
export const linkCodeTtlMs = 15 * 60 * 1000;

/**
 * 16 bytes from the CSPRNG → 22 base64url characters (128 bits): fits Telegram's deep-link
 * `start` parameter (up to 64 characters of A-Z a-z 0-9 _ -, https://core.telegram.org/bots/features#deep-linking).
 */
export function generateLinkCode(): string {
  return randomBytes(16).toString('base64url');
}

export function hashLinkCode(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}

export function buildDeepLink(botUsername: string | null, code: string): string | null {
  return botUsername ? `https://t.me/${botUsername}?start=${code}` : null;
}

export interface IssuedLinkCode {
  code: string;
  expiresAt: string;
  /** `https://t.me/<bot>?start=<code>`, or null when the bot's username is not configured. */
  deepLink: string | null;
}

/** Issues the account's one-time link code, replacing any earlier one. Only its hash is stored. */
export async function issueLinkCode(context: Pick<AppContext, 'store' | 'clock'>, accountId: string, botUsername: string | null): Promise<IssuedLinkCode> {
  const { db } = context.store;
  if (!(await findAccount(db, accountId))) throw notFound(`Account '${accountId}'`);
  const code = generateLinkCode();
  const now = context.clock.now();
  const expiresAt = new Date(now.getTime() + linkCodeTtlMs).toISOString();
  await upsertLinkCode(db, { accountId, codeHash: hashLinkCode(code), createdAt: now.toISOString(), expiresAt });
  return { code, expiresAt, deepLink: buildDeepLink(botUsername, code) };
}

export function encodeLinkCode(issued: IssuedLinkCode): { code: string; expires_at: string; deep_link: string | null } {
  return { code: issued.code, expires_at: issued.expiresAt, deep_link: issued.deepLink };
}
