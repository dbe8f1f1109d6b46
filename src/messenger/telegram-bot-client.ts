import type { Logger } from 'pino';
import { Agent, request } from 'undici';
import type { TelegramConfig } from '../config/types.js';
import type { BotMessage } from './handle-telegram-update.js';

export interface TelegramBotClientOptions {
  config: Pick<TelegramConfig, 'botToken' | 'apiBaseUrl'>;
  logger: Logger;
  /** Connect, response headers and body, each; also how long close() waits for sends in flight. */
  timeoutMs?: number;
}

/**
 * Calls the Telegram Bot API (https://core.telegram.org/bots/api#making-requests) over one
 * keep-alive pool. Failures are logged and reported as `false`, never thrown: a reply that
 * cannot be delivered must not undo a link. The token is part of every URL, so nothing that
 * could contain a URL is logged without first cutting the token out.
 */
export class TelegramBotClient {
  private readonly agent: Agent;
  private readonly pending = new Set<Promise<boolean>>();
  private readonly timeoutMs: number;

  constructor(private readonly options: TelegramBotClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.agent = new Agent({ connect: { timeout: this.timeoutMs }, keepAliveTimeout: 30_000, connections: 16 });
  }

  /** Sends without waiting for Telegram, so the webhook can answer at once; close() awaits it. */
  sendInBackground(message: BotMessage): void {
    const sending = this.sendMessage(message);
    this.pending.add(sending);
    void sending.finally(() => this.pending.delete(sending));
  }

  async sendMessage(message: BotMessage): Promise<boolean> {
    const { botToken, apiBaseUrl } = this.options.config;
    try {
      const response = await request(`${apiBaseUrl}/bot${botToken}/sendMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ chat_id: message.chatId, text: message.text }),
        dispatcher: this.agent,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const answer = readBotApiAnswer(await response.body.text());
      if (response.statusCode >= 200 && response.statusCode < 300 && answer.ok) return true;
      this.options.logger.warn({ method: 'sendMessage', status: response.statusCode, description: this.redact(answer.description) }, 'telegram bot api refused');
    } catch (error) {
      const { code, message: text } = error as { code?: string; message?: string };
      this.options.logger.warn({ method: 'sendMessage', code, error: this.redact(text) }, 'telegram bot api unreachable');
    }
    return false;
  }

  /** Waits (bounded) for replies still being sent, then closes the connection pool. */
  async close(): Promise<void> {
    if (this.pending.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.timeoutMs);
      });
      await Promise.race([Promise.allSettled([...this.pending]), timeout]);
      clearTimeout(timer);
    }
    await this.agent.destroy();
  }

  private redact(text: string | undefined): string | undefined {
    return text?.replaceAll(this.options.config.botToken, '[redacted]');
  }
}

/** Bot API answers are `{ok, result}` or `{ok: false, description}`; a proxy's HTML page is neither. */
function readBotApiAnswer(text: string): { ok: boolean; description?: string } {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return { ok: false, description: 'answer is not a JSON object' };
    const { ok, description } = value as { ok?: unknown; description?: unknown };
    return { ok: ok === true, description: typeof description === 'string' ? description.slice(0, 500) : undefined };
  } catch {
    return { ok: false, description: 'answer is not JSON' };
  }
}
