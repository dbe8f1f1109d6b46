import type { AppContext } from '../app-context.js';
import type { AlertChannel, AlertPayload, AlertType } from './alert-types.js';
import { findAlertSettings } from './db/alert-settings.js';

export type AlertDependencies = Pick<AppContext, 'store' | 'clock' | 'createId' | 'tasks' | 'logger'>;

/** The task kind of one alert's delivery on one channel (`alert-task-handler.ts`). */
export const alertTaskKind = 'alert';

/**
 * Raises one alert: one durable delivery task per configured channel, all carrying the same
 * alert (and id), so a channel that is down is retried by the task engine for 24 h without
 * holding up the others, and a receiver sees the same `id` on every retry. An account without
 * channels gets nothing (its alert is only logged). Answers the alert and the channels used.
 */
export async function raiseAlert(
  dependencies: AlertDependencies,
  alert: { accountId: string; type: AlertType; data: Record<string, unknown>; id?: string },
): Promise<{ alert: AlertPayload; channels: AlertChannel[] }> {
  const payload: AlertPayload = {
    id: alert.id ?? dependencies.createId('alr'),
    type: alert.type,
    account_id: alert.accountId,
    created_at: dependencies.clock.now().toISOString(),
    data: alert.data,
  };
  const settings = await findAlertSettings(dependencies.store.db, alert.accountId);
  const channels: AlertChannel[] = [];
  if (settings?.webhook) channels.push('webhook');
  if (settings?.email) channels.push('email');
  if (settings?.telegram) channels.push('telegram');
  for (const channel of channels) {
    await dependencies.tasks.create({
      accountId: alert.accountId,
      keyId: null,
      kind: alertTaskKind,
      model: alert.type,
      provider: channel,
      input: { channel, alert: payload },
      // Raised twice under one id (a retried caller), delivered once per channel.
      idempotencyKey: `${payload.id}:${channel}`,
      requestId: null,
      reservation: null,
      // Nothing to submit first: the delivery is the "poll", due at once.
      providerJobId: payload.id,
    });
  }
  if (channels.length > 0) dependencies.logger.info({ accountId: alert.accountId, alert: payload.id, type: alert.type, channels }, 'alert raised');
  else dependencies.logger.info({ accountId: alert.accountId, type: alert.type }, 'alert not sent: the account has no alert channel on');
  return { alert: payload, channels };
}
