import type { AppContext } from '../app-context.js';
import { UpstreamError } from '../errors/upstream-error.js';
import { TelegramBotClient } from '../messenger/telegram-bot-client.js';
import { FetchRefusedError } from '../outbound/fetch-public-url.js';
import { postPublicUrl } from '../outbound/post-public-url.js';
import { createSignInMailer } from '../people/sign-in-mailer.js';
import type { PollOutcome, TaskHandler, TaskRecord } from '../tasks/task-types.js';
import type { AlertChannel, AlertPayload } from './alert-types.js';
import { describeAlert } from './describe-alert.js';
import { findAlertSettings } from './db/alert-settings.js';
import { findAlertEmails, findTelegramChat } from './db/alert-recipients.js';
import { alertTaskKind } from './raise-alert.js';
import { signWebhook } from './sign-webhook.js';

const serviceName = 'Switchyard';
const deliveryTimeoutMs = 10_000;
/** What the operator's address rule refuses is not retried: the URL will not become public. */
const refusedForGood = new Set(['invalid_url', 'scheme', 'address']);

/**
 * Delivers one alert on one channel, as a task of the durable engine: a delivery that fails
 * (receiver down, 5xx, SMTP or Bot API unreachable) throws an `UpstreamError`, and the engine
 * tries again with exponential backoff (10 s doubling up to 15 min, jittered) until the task's
 * maximum age of 24 h. The alert in the task's input is sent as it was raised, so every retry
 * carries the same `id`; the webhook's URL and secret are read at each try (the current ones).
 */
export const alertTaskHandler: TaskHandler<AppContext> = {
  kind: alertTaskKind,
  endpoint: '/alerts',
  paid: false,
  schedule: { maxAgeMs: 24 * 60 * 60 * 1000, firstPollMs: 0, minPollMs: 10_000, maxPollMs: 60_000, maxBackoffMs: 15 * 60 * 1000 },
  async poll(task, context) {
    const { channel, alert } = task.input as { channel: AlertChannel; alert: AlertPayload };
    if (channel === 'webhook') return deliverWebhook(context, task, alert);
    if (channel === 'email') return deliverMail(context, alert);
    return deliverTelegram(context, alert);
  },
};

const delivered = (detail: Record<string, unknown>): PollOutcome => ({ state: 'completed', cost: 0n, result: detail });
const retry = (provider: string, status: number, message: string, cause?: unknown) => new UpstreamError({ provider, status, message, retryable: true, cause });

async function deliverWebhook(context: AppContext, task: TaskRecord, alert: AlertPayload): Promise<PollOutcome> {
  const webhook = (await findAlertSettings(context.store.db, alert.account_id))?.webhook;
  if (!webhook) return { state: 'failed', error: 'the webhook was removed before the alert could be delivered' };
  const body = JSON.stringify(alert);
  const signature = signWebhook(webhook.secret, body, Math.floor(context.clock.now().getTime() / 1000));
  let status: number;
  try {
    status = await postPublicUrl(webhook.url, body, { 'x-switchyard-signature': signature, 'x-switchyard-alert-id': alert.id }, {
      timeoutMs: deliveryTimeoutMs,
      allowPrivate: context.config.alerts?.allowPrivateUrls ?? false,
    });
  } catch (error) {
    if (error instanceof FetchRefusedError && refusedForGood.has(error.reason)) return { state: 'failed', error: `webhook URL ${error.message}` };
    throw retry('alerts-webhook', 0, `webhook ${(error as Error).message}`, error);
  }
  if (status >= 200 && status < 300) return delivered({ status, attempts: task.attempts + 1 });
  throw retry('alerts-webhook', status, `webhook answered HTTP ${status}`);
}

async function deliverMail(context: AppContext, alert: AlertPayload): Promise<PollOutcome> {
  const settings = context.config.auth?.email;
  if (!settings) return { state: 'failed', error: 'mail is not configured (auth.email)' };
  const to = await findAlertEmails(context.store.db, alert.account_id);
  if (to.length === 0) return { state: 'failed', error: 'no owner or admin of the account has an email address' };
  const mailer = createSignInMailer(settings, serviceName);
  try {
    await mailer.sendText({ to, ...describeAlert(alert, serviceName) });
  } catch (error) {
    throw retry('alerts-email', 0, `mail could not be sent: ${(error as Error).message}`, error);
  } finally {
    mailer.close();
  }
  return delivered({ recipients: to.length });
}

async function deliverTelegram(context: AppContext, alert: AlertPayload): Promise<PollOutcome> {
  const telegram = context.config.server.telegram;
  if (!telegram) return { state: 'failed', error: 'no Telegram bot is configured (TELEGRAM_BOT_TOKEN)' };
  const chatId = await findTelegramChat(context.store.db, alert.account_id);
  if (chatId === null) return { state: 'failed', error: 'no Telegram chat is linked to the account' };
  const bot = new TelegramBotClient({ config: telegram, logger: context.logger, timeoutMs: deliveryTimeoutMs });
  try {
    const { subject, text } = describeAlert(alert, serviceName);
    if (!(await bot.sendMessage({ chatId, text: `${subject}\n\n${text}` }))) throw retry('alerts-telegram', 0, 'the Telegram Bot API did not take the message');
  } finally {
    await bot.close();
  }
  return delivered({ chat: true });
}
