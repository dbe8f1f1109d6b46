import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { GatewayError, notFound } from '../../errors/gateway-error.js';
import { admitIdentity } from '../../people/admit-identity.js';
import { createOidcSignIn } from '../../people/oidc/create-oidc-sign-in.js';
import { safeReturnTo } from '../../people/return-to.js';
import { hashSecret } from '../../people/session-secrets.js';
import { deleteExpiredOidcStates, insertOidcState, takeOidcState } from '../../store/repositories/oidc-states.js';
import { finishSignIn } from './finish-sign-in.js';
import { sendRefusalPage } from './refusal-page.js';

/** Long enough to sign in at the provider (a password, a second factor), short enough that an abandoned state soon goes. */
const stateTtlMs = 10 * 60_000;

const ProviderParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const StartQuery = Type.Object({ return_to: Type.Optional(Type.String({ maxLength: 2000 })) });
// The provider's answer: `code` and `state`, or `error` (RFC 6749 §4.1.2.1); other parameters (iss, session_state) pass.
const CallbackQuery = Type.Object({ state: Type.Optional(Type.String({ maxLength: 500 })) });

/**
 * OpenID Connect sign-in (contract §7) over the client of `people/oidc/`: the start keeps the
 * state, nonce and PKCE verifier server-side (only the state's hash as key) and redirects to the
 * provider; the callback takes that record once — a replayed or forged callback finds nothing —
 * lets the client check the answer, admits the identity and sets the session cookie. The browser
 * sees a short page when something fails, with the reason.
 */
export function registerOidcSignInRoutes(app: FastifyInstance, context: AppContext): void {
  const providers = context.config.auth?.oidc ?? [];
  const oidc = createOidcSignIn({ providers });
  const config = { auth: 'none' as const };
  // The redirect URI the provider has registered: the page's configured origin, never the Host header.
  const redirectUriOf = (id: string) => `${context.config.server.publicUrl}/auth/oidc/${id}/callback`;
  const requireProvider = (id: string) => {
    const provider = providers.find((candidate) => candidate.id === id);
    if (!provider || !context.config.server.publicUrl) throw notFound(`Sign-in provider '${id}'`);
    return provider;
  };
  const refuse = (reply: FastifyReply, error: unknown) => {
    if (!(error instanceof GatewayError) || error.status >= 500) throw error;
    return sendRefusalPage(reply, error.status, 'Sign-in did not work', error.message);
  };

  app.get<{ Params: { id: string }; Querystring: { return_to?: string } }>(
    '/auth/oidc/:id/start',
    { schema: { params: ProviderParams, querystring: StartQuery }, config },
    async (request, reply) => {
      const provider = requireProvider(request.params.id);
      const start = await oidc.beginSignIn(provider.id, { redirectUri: redirectUriOf(provider.id) });
      const now = context.clock.now();
      await deleteExpiredOidcStates(context.store.db, now.toISOString());
      await insertOidcState(context.store.db, {
        stateHash: hashSecret(start.state),
        providerId: provider.id,
        nonce: start.nonce,
        codeVerifier: start.codeVerifier,
        returnTo: safeReturnTo(request.query.return_to),
        expiresAt: new Date(now.getTime() + stateTtlMs).toISOString(),
      });
      return reply.header('cache-control', 'no-store').redirect(start.authorizationUrl, 303);
    },
  );

  app.get<{ Params: { id: string }; Querystring: { state?: string } }>(
    '/auth/oidc/:id/callback',
    { schema: { params: ProviderParams, querystring: CallbackQuery }, config },
    async (request, reply) => {
      const provider = requireProvider(request.params.id);
      const state = request.query.state;
      const pending = state === undefined ? undefined : await takeOidcState(context.store.db, hashSecret(state), context.clock.now().toISOString());
      if (state === undefined || !pending || pending.providerId !== provider.id) {
        return sendRefusalPage(reply, 400, 'This sign-in has expired', `It was already used, is more than 10 minutes old, or did not start here. Sign in with ${provider.name} again.`);
      }
      let identity;
      try {
        identity = await oidc.finishSignIn(provider.id, {
          callbackUrl: request.url,
          redirectUri: redirectUriOf(provider.id),
          expected: { state, nonce: pending.nonce, codeVerifier: pending.codeVerifier },
        });
      } catch (error) {
        return refuse(reply, error);
      }
      // Only a verified address identifies a person (contract §7); an unverified one is ignored.
      const email = identity.emailVerified && identity.email !== null ? identity.email.trim().toLowerCase() : null;
      const name = identity.name ?? (email === null ? provider.name : email.slice(0, email.indexOf('@')));
      const admission = await admitIdentity(context, { method: 'oidc', issuer: identity.issuer, subject: identity.subject, email, name }, { returnTo: pending.returnTo, ip: request.ip });
      if (admission.status === 'refused') return sendRefusalPage(reply, 403, 'You cannot sign up here', admission.message);
      await finishSignIn(context, request, reply, admission.user, 'oidc');
      return reply.redirect(pending.returnTo, 303);
    },
  );
}
