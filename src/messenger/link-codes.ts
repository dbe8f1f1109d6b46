import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import { GatewayError, notFound } from '../errors/gateway-error.js';
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

/**
 * The bot username for a code the server hands out, or a refusal when this server runs no
 * Telegram bot: nothing would redeem the code, so none is issued (the CLI, which may serve a bot
 * run elsewhere, calls `issueLinkCode` directly).
 */
export function requireTelegramBot(context: Pick<AppContext, 'config'>): string | null {
  const telegram = context.config.server.telegram;
  if (!telegram) {
    throw new GatewayError('not_found', 'This gateway runs no Telegram bot, so there is nothing to link: the operator sets TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET to enable linking', {
      metadata: { reason: 'messenger_not_configured' },
    });
  }
  return telegram.botUsername;
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
