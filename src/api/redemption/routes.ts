import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { MAX_USD_AMOUNT, nanoToUsd } from '../../core/money.js';
import { invalidRequest } from '../../errors/gateway-error.js';
import { decodeUsd } from '../../http/decode-usd.js';
import type { RedemptionBatch } from '../../redemption/batches.js';
import { listBatches } from '../../redemption/batches.js';
import { createBatch, maxBatchCount } from '../../redemption/create-batch.js';
import { redeemCode } from '../../redemption/redeem-code.js';
import { actorOf } from '../../audit/record-audit.js';
import { balanceOf } from '../shared/encode-account.js';
import { defaultPageSize, PageQuery, toPage } from '../shared/pagination.js';

const CreateBatchBody = Type.Object(
  {
    amount: Type.Number({ exclusiveMinimum: 0, maximum: MAX_USD_AMOUNT }),
    count: Type.Integer({ minimum: 1, maximum: maxBatchCount }),
    expires_at: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Null()])),
    note: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
  },
  { additionalProperties: false },
);
type CreateBatchBody = Static<typeof CreateBatchBody>;
const RedeemBody = Type.Object({ code: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });

/** A batch as the admin API shows it; amounts in USD. */
export function encodeBatch(batch: RedemptionBatch) {
  return {
    id: batch.id,
    amount: nanoToUsd(batch.amount),
    count: batch.count,
    redeemed: batch.redeemed,
    note: batch.note,
    expires_at: batch.expiresAt,
    created_at: batch.createdAt,
  };
}

/** An ISO 8601 time from a body, normalized to UTC with milliseconds (the store compares text). */
function decodeTime(value: string | null | undefined, param: string): string | null {
  if (value === undefined || value === null) return null;
  // A date and a time with a zone: a bare date or a local time would mean different instants on different servers.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) || Number.isNaN(Date.parse(value))) {
    throw invalidRequest(`'${param}' must be an ISO 8601 time with a zone, e.g. 2027-01-31T23:59:59Z`, param);
  }
  return new Date(Date.parse(value)).toISOString();
}

/**
 * Redemption codes (contract §7): the operator makes batches and lists them (admin token, at
 * /admin and /v1/admin); an account redeems a code with a management key (or an owner's or
 * admin's session, which passes `management`).
 */
export function registerRedemptionRoutes(app: FastifyInstance, context: AppContext): void {
  const config = { auth: 'admin' as const };
  for (const prefix of ['/admin', '/v1/admin']) {
    // The codes are in this answer and nowhere else: the database keeps only their hashes.
    app.post<{ Body: CreateBatchBody }>(`${prefix}/redemption-codes`, { schema: { body: CreateBatchBody }, config }, async (request, reply) => {
      const { batch, codes } = await createBatch(context, {
        amount: decodeUsd(request.body.amount, 'amount'),
        count: request.body.count,
        expiresAt: decodeTime(request.body.expires_at, 'expires_at'),
        note: request.body.note ?? null,
      });
      return reply.code(201).send({ data: { ...encodeBatch(batch), codes } });
    });

    app.get<{ Querystring: PageQuery }>(`${prefix}/redemption-codes`, { schema: { querystring: PageQuery }, config }, async (request) => {
      const limit = request.query.limit ?? defaultPageSize;
      const page = toPage(await listBatches(context.store.db, { limit: limit + 1, cursor: request.query.cursor }), limit, (batch) => batch.id);
      return { data: page.data.map(encodeBatch), next_cursor: page.next_cursor };
    });
  }

  app.post<{ Body: { code: string } }>('/v1/credits/redeem', { schema: { body: RedeemBody }, config: { auth: 'management' } }, async (request) => {
    const { amount, account } = await redeemCode(context, request.principal!.accountId, request.body.code, { actor: actorOf(request.principal!), ip: request.ip });
    return { data: { amount: nanoToUsd(amount), balance: nanoToUsd(balanceOf(account)) } };
  });
}
