import { createHash, createHmac } from 'node:crypto';
import { secretsEqual } from '../auth/api-key-format.js';

/** The Telegram Login Widget's fields as the page posts them (https://core.telegram.org/widgets/login#receiving-authorization-data). */
export interface TelegramLoginFields {
  id: number;
  first_name?: string;
  last_name?: string;
  username?: string;
  photo_url?: string;
  auth_date: number;
  hash: string;
}

/** An `auth_date` older than this is refused (contract §7): a captured widget answer dies within a day. */
export const telegramLoginMaxAgeSeconds = 24 * 3600;
/** Clock skew allowed for an `auth_date` in the future. */
const futureSkewSeconds = 300;

/**
 * Checks the widget's answer as Telegram documents it: `hash` is the hex HMAC-SHA-256, keyed with
 * the SHA-256 of the bot token, of every other received field as `key=value` lines sorted by
 * key; and `auth_date` is at most 24 hours old. Answers why it is refused, or null when valid.
 */
export function checkTelegramLogin(fields: TelegramLoginFields, botToken: string, nowMs: number): 'bad_hash' | 'stale' | null {
  const lines = Object.entries(fields)
    .filter(([key, value]) => key !== 'hash' && value !== undefined)
    .map(([key, value]) => `${key}=${String(value)}`)
    .sort();
  const secret = createHash('sha256').update(botToken).digest();
  const expected = createHmac('sha256', secret).update(lines.join('\n')).digest('hex');
  if (!secretsEqual(fields.hash.toLowerCase(), expected)) return 'bad_hash';
  const ageSeconds = nowMs / 1000 - fields.auth_date;
  if (ageSeconds > telegramLoginMaxAgeSeconds || ageSeconds < -futureSkewSeconds) return 'stale';
  return null;
}

/** The name a Telegram user goes by: first and last name, else the username. */
export function telegramDisplayName(fields: TelegramLoginFields): string {
  const name = [fields.first_name, fields.last_name].filter((part) => part !== undefined && part !== '').join(' ');
  return name || fields.username || `telegram ${fields.id}`;
}
