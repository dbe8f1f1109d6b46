import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { readAlertSettings, updateAlertSettings } from '../../alerts/alert-settings.js';
import { raiseAlert } from '../../alerts/raise-alert.js';
import { actorOf } from '../../audit/record-audit.js';
import { MAX_USD_AMOUNT } from '../../core/money.js';
import { invalidRequest } from '../../errors/gateway-error.js';
import { decodeUsd } from '../../http/decode-usd.js';

const AlertsBody = Type.Object(
  {
    // The threshold's range is checked by decodeUsd, which names `low_balance.threshold` (a bound
    // here would make the union's error say only that `low_balance` must be null).
    low_balance: Type.Union([Type.Null(), Type.Object({ threshold: Type.Number({ description: `USD, 0 to ${MAX_USD_AMOUNT}` }) }, { additionalProperties: false })]),
    key_limit_percents: Type.Array(Type.Integer({ minimum: 1, maximum: 100 }), { maxItems: 10, uniqueItems: true }),
    channels: Type.Object(
      {
        email: Type.Boolean(),
        telegram: Type.Boolean(),
        webhook: Type.Union([
          Type.Null(),
          Type.Object(
            { url: Type.String({ minLength: 1, maxLength: 2000 }), secret: Type.Optional(Type.String({ minLength: 8, maxLength: 200, description: '16 to 200 characters, or the masked value GET shows to keep the stored one' })) },
            { additionalProperties: false },
          ),
        ]),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
type AlertsBody = Static<typeof AlertsBody>;

/**
 * Alerts (contract §8; owners and admins, or a management key): the settings, and a test alert
 * through the configured channels (the page's "send a test alert" button).
 */
export function registerAlertRoutes(app: FastifyInstance, context: AppContext): void {
  const config = { auth: 'management' as const };

  app.get('/v1/alerts', { config }, async (request) => ({ data: await readAlertSettings(context, request.principal!.accountId) }));

  app.put<{ Body: AlertsBody }>('/v1/alerts', { schema: { body: AlertsBody }, config }, async (request) => {
    const { body } = request;
    const principal = request.principal!;
    const secret = body.channels.webhook?.secret;
    // Shorter than 16 passes the schema only as the masked form (`****abcd`, 8 characters).
    if (secret !== undefined && secret.length < 16 && !/^\*{4}.{4}$/.test(secret)) throw invalidRequest("'channels.webhook.secret' must be 16 to 200 characters", 'channels.webhook.secret');
    await updateAlertSettings(
      context,
      principal.accountId,
      {
        lowBalanceThreshold: body.low_balance === null ? null : decodeUsd(body.low_balance.threshold, 'low_balance.threshold'),
        keyLimitPercents: body.key_limit_percents,
        email: body.channels.email,
        telegram: body.channels.telegram,
        webhook: body.channels.webhook,
      },
      { actor: actorOf(principal), ip: request.ip },
    );
    return { data: await readAlertSettings(context, principal.accountId) };
  });

  app.post('/v1/alerts/test', { config }, async (request) => {
    const principal = request.principal!;
    const { alert, channels } = await raiseAlert(context, { accountId: principal.accountId, type: 'test', data: { requested_by: actorOf(principal) } });
    if (channels.length === 0) throw invalidRequest('No alert channel is on: turn on email or Telegram, or set a webhook, then send a test alert', 'channels');
    return { data: { id: alert.id, type: alert.type, channels } };
  });
}
