import { ConfigError } from './config-error.js';
import type { TelegramConfig } from './types.js';

export const defaultTelegramApiBaseUrl = 'https://api.telegram.org';

// The shapes Telegram itself accepts: BotFather tokens are "<bot id>:<secret>"; a webhook
// secret_token is 1-256 characters of A-Z a-z 0-9 _ - (https://core.telegram.org/bots/api#setwebhook).
const tokenPattern = /^\d+:[A-Za-z0-9_-]+$/;
const secretPattern = /^[A-Za-z0-9_-]{1,256}$/;
const usernamePattern = /^[A-Za-z0-9_]{1,64}$/;

/**
 * Reads TELEGRAM_BOT_TOKEN, TELEGRAM_WEBHOOK_SECRET, TELEGRAM_API_BASE_URL and
 * TELEGRAM_BOT_USERNAME. Null when no token is set: the bot, and its webhook, are off.
 * A token without a webhook secret is refused, because the webhook would accept forged updates.
 */
export function readTelegramConfig(env: NodeJS.ProcessEnv): TelegramConfig | null {
  const botToken = env.TELEGRAM_BOT_TOKEN || '';
  if (!botToken) return null;
  // The message never repeats the token: it is a credential.
  if (!tokenPattern.test(botToken)) throw new ConfigError('environment variable TELEGRAM_BOT_TOKEN: expected a BotFather token like "123456:ABC-DEF…"');
  const webhookSecret = env.TELEGRAM_WEBHOOK_SECRET || '';
  if (!webhookSecret) throw new ConfigError('environment variable TELEGRAM_WEBHOOK_SECRET: required when TELEGRAM_BOT_TOKEN is set (1-256 characters of A-Z a-z 0-9 _ -)');
  if (!secretPattern.test(webhookSecret)) throw new ConfigError('environment variable TELEGRAM_WEBHOOK_SECRET: expected 1-256 characters of A-Z a-z 0-9 _ -');
  return { botToken, webhookSecret, apiBaseUrl: readApiBaseUrl(env), botUsername: readTelegramBotUsername(env) };
}

/** The bot's username without "@", for t.me deep links; also read on its own by the CLI, which needs no token. */
export function readTelegramBotUsername(env: NodeJS.ProcessEnv): string | null {
  const text = (env.TELEGRAM_BOT_USERNAME || '').replace(/^@/, '');
  if (!text) return null;
  if (!usernamePattern.test(text)) throw new ConfigError(`environment variable TELEGRAM_BOT_USERNAME: expected a bot username like "switchyard_bot", got "${text}"`);
  return text;
}

function readApiBaseUrl(env: NodeJS.ProcessEnv): string {
  const text = env.TELEGRAM_API_BASE_URL || defaultTelegramApiBaseUrl;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`environment variable TELEGRAM_API_BASE_URL: expected an http(s) URL, got "${text}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(`environment variable TELEGRAM_API_BASE_URL: expected an http(s) URL, got "${text}"`);
  }
  return text.replace(/\/+$/, '');
}
