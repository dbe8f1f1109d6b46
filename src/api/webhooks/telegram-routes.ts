import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { secretsEqual } from '../../auth/api-key-format.js';
import { invalidApiKey } from '../../auth/authenticate.js';
import { handleTelegramUpdate } from '../../messenger/handle-telegram-update.js';
import { TelegramBotClient } from '../../messenger/telegram-bot-client.js';

const secretHeader = 'x-telegram-bot-api-secret-token';

/**
 * `POST /webhooks/telegram`, where Telegram delivers the bot's updates (set up with setWebhook
 * and a secret_token). Outside /v1 and without API-key auth: the secret header authenticates
 * Telegram. Not registered at all when the bot is not configured, so the path answers 404.
 *
 * Every authenticated update is answered 200 as soon as the store work is done; the bot's
 * reply goes out afterwards, so a slow or failing Bot API neither delays the answer nor makes
 * Telegram redeliver the update (https://core.telegram.org/bots/api#setwebhook).
 */
export function registerTelegramWebhookRoutes(app: FastifyInstance, context: AppContext): void {
  const telegram = context.config.server.telegram;
  if (!telegram) return;
  const bot = new TelegramBotClient({ config: telegram, logger: context.logger });
  app.addHook('onClose', async () => bot.close());

  // Checked before the body is read, so unauthenticated callers cost no parsing.
  const checkSecret = async (request: FastifyRequest) => {
    const presented = request.headers[secretHeader];
    if (typeof presented !== 'string' || !secretsEqual(presented, telegram.webhookSecret)) {
      throw invalidApiKey('Invalid or missing X-Telegram-Bot-Api-Secret-Token');
    }
  };

  app.post('/webhooks/telegram', { config: { auth: 'none' }, onRequest: checkSecret, bodyLimit: 1024 * 1024 }, async (request) => {
    const message = await handleTelegramUpdate(context, request.body);
    if (message) bot.sendInBackground(message);
    return { ok: true };
  });
}
