import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { GatewayError, notFound } from '../../errors/gateway-error.js';
import { admitIdentity } from '../../people/admit-identity.js';
import { describeSession } from '../../people/describe-session.js';
import { linkTelegramMessenger } from '../../people/link-telegram-messenger.js';
import { safeReturnTo } from '../../people/return-to.js';
import { csrfTokenOf } from '../../people/session-secrets.js';
import { checkTelegramLogin, telegramDisplayName, type TelegramLoginFields } from '../../people/verify-telegram-login.js';
import { finishSignIn } from './finish-sign-in.js';

const TelegramBody = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    first_name: Type.Optional(Type.String({ maxLength: 256 })),
    last_name: Type.Optional(Type.String({ maxLength: 256 })),
    username: Type.Optional(Type.String({ maxLength: 64 })),
    photo_url: Type.Optional(Type.String({ maxLength: 2000 })),
    auth_date: Type.Integer({ minimum: 0 }),
    hash: Type.String({ pattern: '^[0-9a-fA-F]{64}$' }),
    /** Where the page goes next, not a widget field (not signed): an invite's path lets sign-up by invite admit (§8). */
    return_to: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

/**
 * Telegram Login Widget sign-in (contract §7): the page posts the widget's fields as JSON (a
 * cross-site form cannot send JSON, so no other site can sign a visitor in as someone else);
 * the hash is checked against the bot token, an answer older than 24 h is refused, and the
 * Telegram account becomes the messenger of the user's account.
 */
export function registerTelegramSignInRoutes(app: FastifyInstance, context: AppContext): void {
  const botToken = context.config.auth?.telegram.login ? context.config.server.telegram?.botToken : undefined;

  app.post<{ Body: TelegramLoginFields & { return_to?: string } }>('/auth/telegram', { schema: { body: TelegramBody }, config: { auth: 'none' } }, async (request, reply) => {
    if (!botToken) throw notFound('Telegram sign-in');
    const { return_to: returnTo, ...fields } = request.body;
    const fault = checkTelegramLogin(fields, botToken, context.clock.now().getTime());
    if (fault === 'bad_hash') throw new GatewayError('forbidden', 'The Telegram login data does not carry a valid signature');
    if (fault === 'stale') throw new GatewayError('forbidden', 'The Telegram login data is more than 24 hours old: sign in with Telegram again');
    const telegramId = String(fields.id);
    const admission = await admitIdentity(context, { method: 'telegram', telegramId, name: telegramDisplayName(fields) }, { returnTo: safeReturnTo(returnTo), ip: request.ip });
    if (admission.status === 'refused') throw new GatewayError('forbidden', admission.message, { metadata: { reason: admission.reason } });
    await linkTelegramMessenger(context, admission.user.id, telegramId);
    const token = await finishSignIn(context, request, reply, admission.user, 'telegram');
    return { data: await describeSession(context, admission.user.id), csrf_token: csrfTokenOf(token) };
  });
}
