import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { addCredits } from '../../accounts/add-credits.js';
import { createAccount } from '../../accounts/create-account.js';
import { adminActor } from '../../audit/record-audit.js';
import { setMessengerLink } from '../../accounts/set-messenger-link.js';
import { encodeLinkCode, issueLinkCode, requireTelegramBot } from '../../messenger/link-codes.js';
import { MAX_NANO, MAX_USD_AMOUNT, nanoToUsd } from '../../core/money.js';
import { decodeUsd } from '../../http/decode-usd.js';
import { invalidRequest, notFound } from '../../errors/gateway-error.js';
import { findAccount } from '../../store/repositories/accounts.js';
import { listUncollected, sumUncollected } from '../../billing/db/ledger.js';
import { balanceOf, encodeAccount } from '../shared/encode-account.js';

const AccountParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const CreateAccountBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), credits: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_USD_AMOUNT })) },
  { additionalProperties: false },
);
const CreditsBody = Type.Object({ amount: Type.Number({ exclusiveMinimum: 0, maximum: MAX_USD_AMOUNT }) }, { additionalProperties: false });
const MessengerBody = Type.Object({ linked: Type.Boolean() }, { additionalProperties: false });
const UncollectedQuery = Type.Object(
  { account_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) },
  { additionalProperties: false },
);

/**
 * The operator's admin API (docs/api-decisions.md §1), behind SWITCHYARD_ADMIN_TOKEN. Mounted at /admin and,
 * for clients that only know the versioned base URL, at /v1/admin too.
 */
export function registerAdminRoutes(app: FastifyInstance, context: AppContext): void {
  const config = { auth: 'admin' as const };
  for (const prefix of ['/admin', '/v1/admin']) {
    app.post<{ Body: { name?: string; credits?: number } }>(`${prefix}/accounts`, { schema: { body: CreateAccountBody }, config }, async (request, reply) => {
      const credits = request.body.credits === undefined ? undefined : decodeUsd(request.body.credits, 'credits');
      const { account, key } = await createAccount(context, { name: request.body.name, credits }, { actor: adminActor, ip: request.ip });
      return reply.code(201).send({ data: { id: account.id, name: account.name, balance: nanoToUsd(balanceOf(account)) }, key });
    });

    app.post<{ Params: { id: string }; Body: { amount: number } }>(
      `${prefix}/accounts/:id/credits`,
      { schema: { params: AccountParams, body: CreditsBody }, config },
      async (request) => {
        const amount = decodeUsd(request.body.amount, 'amount');
        // Credits live in a 64-bit column: refuse a credit that would overflow it (PostgreSQL
        // would fail the write as a 500, SQLite would turn the total into a float).
        const current = await findAccount(context.store.db, request.params.id);
        if (current && current.totalCredits + amount > MAX_NANO) {
          throw invalidRequest(`'amount' would take the account's total credits above ${nanoToUsd(MAX_NANO)} USD, the most it can hold`, 'amount');
        }
        const account = await addCredits(context, request.params.id, amount, 'admin credit', { actor: adminActor, ip: request.ip });
        return { data: { balance: nanoToUsd(balanceOf(account)) } };
      },
    );

    app.put<{ Params: { id: string }; Body: { linked: boolean } }>(
      `${prefix}/accounts/:id/messenger`,
      { schema: { params: AccountParams, body: MessengerBody }, config },
      async (request) => {
        await setMessengerLink(context, request.params.id, request.body.linked);
        return { data: { linked: request.body.linked } };
      },
    );

    app.delete<{ Params: { id: string } }>(`${prefix}/accounts/:id/messenger`, { schema: { params: AccountParams }, config }, async (request) => {
      await setMessengerLink(context, request.params.id, false);
      return { data: { linked: false } };
    });

    // A one-time code the account's owner redeems with the Telegram bot (/start CODE or the deep link).
    app.post<{ Params: { id: string } }>(`${prefix}/accounts/:id/messenger/link-code`, { schema: { params: AccountParams }, config }, async (request, reply) => {
      const issued = await issueLinkCode(context, request.params.id, requireTelegramBot(context));
      return reply.code(201).send({ data: encodeLinkCode(issued) });
    });

    app.get<{ Params: { id: string } }>(`${prefix}/accounts/:id`, { schema: { params: AccountParams }, config }, async (request) => {
      const account = await findAccount(context.store.db, request.params.id);
      if (!account) throw notFound(`Account '${request.params.id}'`);
      // What requests cost beyond the funds (or a key's limit) when they settled: the operator's loss.
      return { data: { ...encodeAccount(account), total_uncollected: nanoToUsd(await sumUncollected(context.store.db, account.id)) } };
    });

    // Every charge the funds could not cover, newest first (the account's total is on GET /accounts/{id}).
    app.get<{ Querystring: { account_id?: string; limit?: number } }>(`${prefix}/uncollected`, { schema: { querystring: UncollectedQuery }, config }, async (request) => {
      const entries = await listUncollected(context.store.db, { accountId: request.query.account_id, limit: request.query.limit ?? 50 });
      return {
        data: entries.map((entry) => ({
          id: entry.id,
          account_id: entry.accountId,
          key_id: entry.keyId,
          request_id: entry.requestId,
          amount: nanoToUsd(entry.amount),
          reason: entry.note,
          created_at: entry.createdAt,
        })),
      };
    });
  }
}
