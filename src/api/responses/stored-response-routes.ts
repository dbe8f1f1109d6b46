import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import type { Principal } from '../../auth/principal.js';
import { notFound } from '../../errors/gateway-error.js';
import { deleteStoredResponse, findStoredResponse, type StoredResponseScope } from '../../store/repositories/stored-responses.js';
import type { PriorTurn } from './continue-previous-response.js';
import { pageInputItems, toListedInputItems } from './list-input-items.js';

const ResponseParams = Type.Object({ response_id: Type.String({ minLength: 1, maxLength: 500 }) });
type ResponseParams = Static<typeof ResponseParams>;

const InputItemsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
    after: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    before: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    include: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  },
  { additionalProperties: false },
);
type InputItemsQuery = Static<typeof InputItemsQuery>;

/** Stored responses are scoped like the request log: the account, and an ordinary key only its own. */
export function storedResponseScope(principal: Principal): StoredResponseScope {
  return principal.management ? { accountId: principal.accountId } : { accountId: principal.accountId, apiKeyId: principal.keyId };
}

/** The earlier turn `previous_response_id` names, when the caller may see it and it has not expired. */
export async function findPriorTurn(context: AppContext, principal: Principal, id: string): Promise<PriorTurn | undefined> {
  const record = await findStoredResponse(context.store.db, storedResponseScope(principal), id, context.clock.now().toISOString());
  if (!record) return undefined;
  const response = JSON.parse(record.response) as { output: unknown[] };
  return { inputItems: JSON.parse(record.inputItems) as unknown[], output: response.output };
}

/**
 * `GET /v1/responses/{id}`, `DELETE /v1/responses/{id}` and `GET /v1/responses/{id}/input_items`
 * (OpenAI's shapes). Unknown, expired, deleted and foreign ids are all 404 `not_found`.
 */
export function registerStoredResponseRoutes(app: FastifyInstance, context: AppContext): void {
  const config = { auth: 'key' as const };
  const { db } = context.store;
  const find = (principal: Principal, id: string) => findStoredResponse(db, storedResponseScope(principal), id, context.clock.now().toISOString());

  app.get<{ Params: ResponseParams }>('/v1/responses/:response_id', { schema: { params: ResponseParams }, config }, async (request) => {
    const record = await find(request.principal!, request.params.response_id);
    if (!record) throw notFound(`Response '${request.params.response_id}'`);
    return JSON.parse(record.response) as unknown;
  });

  app.delete<{ Params: ResponseParams }>('/v1/responses/:response_id', { schema: { params: ResponseParams }, config }, async (request) => {
    const id = request.params.response_id;
    const deleted = await deleteStoredResponse(db, storedResponseScope(request.principal!), id, context.clock.now().toISOString());
    if (!deleted) throw notFound(`Response '${id}'`);
    return { id, object: 'response', deleted: true };
  });

  app.get<{ Params: ResponseParams; Querystring: InputItemsQuery }>(
    '/v1/responses/:response_id/input_items',
    { schema: { params: ResponseParams, querystring: InputItemsQuery }, config },
    async (request) => {
      const record = await find(request.principal!, request.params.response_id);
      if (!record) throw notFound(`Response '${request.params.response_id}'`);
      const items = toListedInputItems(record.id, JSON.parse(record.inputItems) as unknown[]);
      return pageInputItems(items, request.query);
    },
  );
}
