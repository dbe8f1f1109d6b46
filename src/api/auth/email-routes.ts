import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { invalidRequest, notFound } from '../../errors/gateway-error.js';
import { admitIdentity } from '../../people/admit-identity.js';
import { isEmailAddress } from '../../people/email-address.js';
import { requestEmailLink } from '../../people/request-email-link.js';
import { safeReturnTo } from '../../people/return-to.js';
import { hashSecret } from '../../people/session-secrets.js';
import { createSignInMailer } from '../../people/sign-in-mailer.js';
import { consumeEmailToken } from '../../store/repositories/email-sign-in-tokens.js';
import { finishSignIn } from './finish-sign-in.js';
import { sendRefusalPage } from './refusal-page.js';

const StartBody = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 254 }), return_to: Type.Optional(Type.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);
type StartBody = Static<typeof StartBody>;
const CallbackQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });

/**
 * Magic-link sign-in (contract §7): `POST /auth/email/start` answers 202 for every well-formed
 * address, known or not, capped or not, and mails after answering, so neither the answer nor its
 * time says whether the address has an account; `GET /auth/email/callback` uses the link once.
 */
export function registerEmailSignInRoutes(app: FastifyInstance, context: AppContext): void {
  const settings = context.config.auth?.email;
  const mailer = settings ? createSignInMailer(settings, 'Switchyard') : undefined;
  if (mailer) app.addHook('onClose', async () => mailer.close());
  const config = { auth: 'none' as const };

  app.post<{ Body: StartBody }>('/auth/email/start', { schema: { body: StartBody }, config }, async (request, reply) => {
    // The link names the page's configured origin, never the request's Host header.
    const publicUrl = context.config.server.publicUrl;
    if (!mailer || !publicUrl) throw notFound('Email sign-in');
    const email = request.body.email.trim().toLowerCase();
    if (!isEmailAddress(email)) throw invalidRequest('Expected an email address', 'email');
    const token = await requestEmailLink(context, email, safeReturnTo(request.body.return_to));
    if (token !== null) {
      const link = `${publicUrl}/auth/email/callback?token=${encodeURIComponent(token)}`;
      mailer.sendLink(email, link).catch((error: unknown) => request.log.warn({ err: error }, 'sign-in mail not sent'));
    }
    return reply.status(202).send({ data: { status: 'accepted', message: 'If this address may sign in, a link is on its way; it works once, within 15 minutes.' } });
  });

  app.get<{ Querystring: { token: string } }>('/auth/email/callback', { schema: { querystring: CallbackQuery }, config }, async (request, reply) => {
    if (!mailer) throw notFound('Email sign-in');
    const now = context.clock.now().toISOString();
    const link = await consumeEmailToken(context.store.db, hashSecret(request.query.token), now);
    if (!link) return sendRefusalPage(reply, 400, 'This sign-in link does not work', 'It has been used already or is more than 15 minutes old. Ask for a new one.');
    const admission = await admitIdentity(context, { method: 'email', email: link.email }, { returnTo: link.returnTo, ip: request.ip });
    if (admission.status === 'refused') return sendRefusalPage(reply, 403, 'You cannot sign up here', admission.message);
    await finishSignIn(context, request, reply, admission.user, 'email');
    return reply.redirect(safeReturnTo(link.returnTo), 303);
  });
}
