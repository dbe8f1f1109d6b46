import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { readTelegramBotUsername, readTelegramConfig } from './read-telegram-config.js';

const token = '123456:ABC-def_ghi';

describe('readTelegramConfig', () => {
  it('is off without a token', () => {
    expect(readTelegramConfig({})).toBeNull();
    expect(readTelegramConfig({ TELEGRAM_WEBHOOK_SECRET: 's', TELEGRAM_BOT_USERNAME: 'bot' })).toBeNull();
  });

  it('reads the token, secret, base URL (default Telegram, trailing slash cut) and username (without @)', () => {
    expect(readTelegramConfig({ TELEGRAM_BOT_TOKEN: token, TELEGRAM_WEBHOOK_SECRET: 'sec_ret-1' })).toEqual({
      botToken: token,
      webhookSecret: 'sec_ret-1',
      apiBaseUrl: 'https://api.telegram.org',
      botUsername: null,
    });
    expect(
      readTelegramConfig({ TELEGRAM_BOT_TOKEN: token, TELEGRAM_WEBHOOK_SECRET: 's', TELEGRAM_API_BASE_URL: 'http://127.0.0.1:8081/', TELEGRAM_BOT_USERNAME: '@switchyard_bot' }),
    ).toMatchObject({ apiBaseUrl: 'http://127.0.0.1:8081', botUsername: 'switchyard_bot' });
  });

  it('refuses a token without a webhook secret, malformed values, and never echoes the token', () => {
    expect(() => readTelegramConfig({ TELEGRAM_BOT_TOKEN: token })).toThrow(/TELEGRAM_WEBHOOK_SECRET: required/);
    expect(() => readTelegramConfig({ TELEGRAM_BOT_TOKEN: token, TELEGRAM_WEBHOOK_SECRET: 'has space' })).toThrow(ConfigError);
    expect(() => readTelegramConfig({ TELEGRAM_BOT_TOKEN: token, TELEGRAM_WEBHOOK_SECRET: 'x'.repeat(257) })).toThrow(/1-256/);
    expect(() => readTelegramConfig({ TELEGRAM_BOT_TOKEN: token, TELEGRAM_WEBHOOK_SECRET: 's', TELEGRAM_API_BASE_URL: 'ftp://x' })).toThrow(/TELEGRAM_API_BASE_URL/);
    expect(() => readTelegramBotUsername({ TELEGRAM_BOT_USERNAME: 'https://t.me/x' })).toThrow(/TELEGRAM_BOT_USERNAME/);
    let message = '';
    try {
      readTelegramConfig({ TELEGRAM_BOT_TOKEN: 'secret-without-id' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('TELEGRAM_BOT_TOKEN');
    expect(message).not.toContain('secret-without-id');
  });
});
