import type { AppContext } from '../app-context.js';
import { recordAudit, type AuditActor } from '../audit/record-audit.js';
import { nanoToUsd } from '../core/money.js';
import { invalidRequest } from '../errors/gateway-error.js';
import { checkPostTarget } from '../outbound/post-public-url.js';
import { FetchRefusedError } from '../outbound/fetch-public-url.js';
import { retryOnConflict } from '../store/retry-conflicts.js';
import type { AlertSettings } from './alert-types.js';
import { findAlertSettings, saveAlertSettings } from './db/alert-settings.js';

/** What `PUT /v1/alerts` asks for, money in nano-USD; a webhook without `secret` keeps the stored one. */
export interface AlertSettingsUpdate {
  lowBalanceThreshold: bigint | null;
  keyLimitPercents: number[];
  email: boolean;
  telegram: boolean;
  webhook: { url: string; secret?: string } | null;
}

/**
 * The secret as `GET` shows it: never whole, only its last four characters, enough to tell which
 * one is set. Sent back unchanged in a `PUT` (the page's round trip), it keeps the stored secret.
 */
export function maskSecret(secret: string): string {
  return `****${secret.slice(-4)}`;
}

/** `GET /v1/alerts`: the settings at the edge (USD), defaults when none were saved. */
export async function readAlertSettings(context: Pick<AppContext, 'store'>, accountId: string) {
  const settings = await findAlertSettings(context.store.db, accountId);
  return {
    low_balance: settings?.lowBalanceThreshold != null ? { threshold: nanoToUsd(settings.lowBalanceThreshold) } : null,
    key_limit_percents: settings?.keyLimitPercents ?? [],
    channels: {
      email: settings?.email ?? false,
      telegram: settings?.telegram ?? false,
      webhook: settings?.webhook ? { url: settings.webhook.url, secret: maskSecret(settings.webhook.secret) } : null,
    },
  };
}

/**
 * `PUT /v1/alerts`: replaces the settings and writes the `alerts.update` audit entry in the same
 * transaction. The webhook URL is checked against the address rule now (and again at each
 * delivery, as DNS may change); a channel the operator has not configured is refused.
 */
export async function updateAlertSettings(
  context: Pick<AppContext, 'store' | 'clock' | 'createId' | 'config'>,
  accountId: string,
  update: AlertSettingsUpdate,
  audit: { actor: AuditActor; ip: string | null },
): Promise<void> {
  if (update.email && !context.config.auth?.email) throw invalidRequest('Email alerts need the operator to configure mail (auth.email)', 'channels.email');
  if (update.telegram && !context.config.server.telegram) throw invalidRequest('Telegram alerts need the operator to configure a Telegram bot', 'channels.telegram');
  const stored = await findAlertSettings(context.store.db, accountId);
  let webhook: AlertSettings['webhook'] = null;
  let secretChanged = false;
  if (update.webhook) {
    await checkWebhookUrl(context, update.webhook.url);
    const kept = stored?.webhook && (update.webhook.secret === undefined || update.webhook.secret === maskSecret(stored.webhook.secret)) ? stored.webhook.secret : undefined;
    const secret = kept ?? update.webhook.secret;
    if (secret === undefined) throw invalidRequest("A new webhook needs a 'secret' (16 to 200 characters) to sign its deliveries", 'channels.webhook.secret');
    secretChanged = secret !== stored?.webhook?.secret;
    webhook = { url: update.webhook.url, secret };
  }
  const now = context.clock.now().toISOString();
  const settings: AlertSettings = { accountId, lowBalanceThreshold: update.lowBalanceThreshold, keyLimitPercents: [...update.keyLimitPercents].sort((a, b) => a - b), email: update.email, telegram: update.telegram, webhook, updatedAt: now };
  await retryOnConflict(() =>
    context.store.db.transaction().execute(async (trx) => {
      await saveAlertSettings(trx, settings);
      await recordAudit(trx, {
        id: context.createId('aud'),
        accountId,
        at: now,
        actor: audit.actor,
        action: 'alerts.update',
        target: null,
        ip: audit.ip,
        details: {
          low_balance: settings.lowBalanceThreshold === null ? null : { threshold: nanoToUsd(settings.lowBalanceThreshold) },
          key_limit_percents: settings.keyLimitPercents,
          channels: { email: settings.email, telegram: settings.telegram, webhook: webhook ? { url: webhook.url, secret_changed: secretChanged } : null },
        },
      });
    }),
  );
}

async function checkWebhookUrl(context: Pick<AppContext, 'config'>, url: string): Promise<void> {
  try {
    await checkPostTarget(url, { allowPrivate: context.config.alerts?.allowPrivateUrls ?? false });
  } catch (error) {
    if (error instanceof FetchRefusedError) throw invalidRequest(`'channels.webhook.url' ${error.message}`, 'channels.webhook.url');
    throw error;
  }
}
