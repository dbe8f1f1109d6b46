import { upsertMessengerLink } from '../../src/store/repositories/messenger-links.js';
import { alertSweepOfContext } from '../../src/create-context.js';
import type { AlertSweep } from '../../src/alerts/alert-sweep.js';
import { startFakeTelegramBotApi, type FakeTelegramBotApi } from '../helpers/fake-telegram-bot-api.js';
import { fixedCostCatalogYaml } from '../helpers/fixed-cost-load.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/start-smtp-server.js';
import { startWebhookReceiver, type WebhookReceiver } from './start-webhook-receiver.js';

export const webhookSecret = 'whsec_alerts-test-0123456789abcdef';
export const ownerEmail = 'owner@alerts.test';
export const adminEmail = 'admin@alerts.test';
export const chatId = 777_001;

export interface AlertsHarness {
  gateway: SimulatedGateway;
  clock: ManualClock;
  receiver: WebhookReceiver;
  smtp: TestSmtpServer;
  bot: FakeTelegramBotApi;
  sweep: AlertSweep;
  call(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: any }>;
  /** Runs the task engine until no alert delivery is due now (the clock does not move). */
  deliver(): Promise<void>;
  /** The Telegram messages sent to the linked chat. */
  telegramMessages(): string[];
  /** Mails that reached the owner (every alert mail goes to owners and admins together). */
  ownerMails(): string[];
  close(): Promise<void>;
}

/**
 * The gateway over real HTTP with the simulator as provider (every request costs exactly
 * FIXED_COST), a real SMTP server for `auth.email`, the Telegram Bot API fake, a local webhook
 * receiver (private URLs allowed for it), an owner and an admin with addresses and a linked chat.
 */
export async function startAlertsHarness(options: { credits: number; allowPrivateUrls?: boolean }): Promise<AlertsHarness> {
  const [receiver, smtp, bot] = await Promise.all([startWebhookReceiver(webhookSecret), startSmtpServer(), startFakeTelegramBotApi()]);
  const clock = new ManualClock(Date.now());
  const gateway = await startSimulatedGateway({
    clock,
    credits: options.credits,
    catalogYaml: (url) => `${fixedCostCatalogYaml(url)}
alerts: {allow_private_urls: ${options.allowPrivateUrls ?? true}, check_ms: 3600000}
`,
    configure: (config) => {
      // Mail by the sign-in SMTP settings (`auth.email`); set here, as sign-in itself is not under test.
      config.auth = { oidc: [], telegram: { login: false }, ...config.auth, email: { smtpUrl: smtp.url, from: 'Switchyard <alerts@switchyard.test>' } };
      config.server.telegram = { botToken: '123456789:AAalerts-test-token', webhookSecret: 'telegram-webhook-secret', apiBaseUrl: bot.url, botUsername: 'switchyard_test_bot' };
    },
  });
  const call = async (method: string, path: string, body?: unknown, key = gateway.key) => {
    const response = await sendJson(gateway, key, method, path, body);
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  const { context } = gateway.test;
  for (const [email, role] of [[ownerEmail, 'owner'], [adminEmail, 'admin']]) {
    const added = await call('POST', `/admin/accounts/${gateway.accountId}/members`, { email, role }, gateway.test.adminToken);
    if (added.status !== 201) throw new Error(`member: ${added.status} ${JSON.stringify(added.body)}`);
  }
  // The chat as the bot links it (messenger/redeem-link-code.ts).
  await upsertMessengerLink(context.store.db, { accountId: gateway.accountId, messenger: 'telegram', externalId: String(chatId), linkedAt: clock.now().toISOString() });
  return {
    gateway,
    clock,
    receiver,
    smtp,
    bot,
    sweep: alertSweepOfContext(context)!,
    call,
    async deliver() {
      while ((await context.tasks.runOnce()) > 0);
    },
    telegramMessages: () => bot.calls.filter((entry) => entry.method === 'sendMessage' && entry.body.chat_id === chatId).map((entry) => String(entry.body.text)),
    ownerMails: () => smtp.mails.filter((mail) => mail.to.includes(ownerEmail)).map((mail) => mail.text),
    async close() {
      await gateway.close();
      await Promise.all([receiver.close(), smtp.close(), bot.close()]);
    },
  };
}
