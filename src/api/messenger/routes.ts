import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { setMessengerLink } from '../../accounts/set-messenger-link.js';
import { encodeLinkCode, issueLinkCode, requireTelegramBot } from '../../messenger/link-codes.js';
import { findMessengerLink } from '../../store/repositories/messenger-links.js';

/**
 * The account holder's own messenger linking (docs/api-decisions.md §5, "linking is done on the account
 * settings page"), for management keys: mint a one-time code (the same code the bot redeems
 * with /start, see messenger/link-codes.ts), read whether the account is linked, or unlink it.
 */
export function registerMessengerRoutes(app: FastifyInstance, context: AppContext): void {
  const config = { auth: 'management' as const };

  app.post('/v1/messenger/link-code', { config }, async (request, reply) => {
    const issued = await issueLinkCode(context, request.principal!.accountId, requireTelegramBot(context));
    return reply.code(201).send({ data: encodeLinkCode(issued) });
  });

  app.get('/v1/messenger', { config }, async (request) => {
    const link = await findMessengerLink(context.store.db, request.principal!.accountId);
    return {
      data: {
        linked: link !== undefined,
        // `admin` marks a link the operator set by hand; `telegram` one the bot confirmed.
        messenger: link?.messenger ?? null,
        linked_at: link?.linkedAt ?? null,
        bot_configured: Boolean(context.config.server.telegram),
      },
    };
  });

  app.delete('/v1/messenger', { config }, async (request) => {
    await setMessengerLink(context, request.principal!.accountId, false);
    return { data: { linked: false } };
  });
}
