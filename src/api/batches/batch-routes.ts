import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { batchEndpoints, cancelBatch, createBatch, readBatch, type BatchEndpoint } from '../../batches/create-batch.js';
import { listBatches } from '../../batches/db/batches.js';
import { encodeBatch } from './encode-batch.js';
import { encodeListPage } from './encode-list-page.js';

const CreateBatchBody = Type.Object(
  {
    input_file_id: Type.String({ minLength: 1, maxLength: 200 }),
    endpoint: Type.Union(batchEndpoints.map((endpoint) => Type.Literal(endpoint))),
    completion_window: Type.Literal('24h'),
    // OpenAI's limit: 16 pairs, keys up to 64 characters, values up to 512.
    metadata: Type.Optional(Type.Union([Type.Null(), Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 512 }), { maxProperties: 16 })])),
  },
  { additionalProperties: false },
);

const BatchParams = Type.Object({ batch_id: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
const ListQuery = Type.Object(
  { after: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) },
  { additionalProperties: false },
);

/**
 * OpenAI's Batch API (contract §9) for every text model of the catalog: `POST /v1/batches`, `GET
 * /v1/batches/{id}`, `GET /v1/batches` (newest first, `after` and `limit` as OpenAI pages them),
 * `POST /v1/batches/{id}/cancel`. Answers OpenAI's objects, unwrapped, as its SDK reads them.
 */
export function registerBatchRoutes(app: FastifyInstance, context: AppContext): void {
  app.post('/v1/batches', { schema: { body: CreateBatchBody }, config: { auth: 'key' } }, async (request) => {
    const body = request.body as Static<typeof CreateBatchBody>;
    const batch = await createBatch(context, request.principal!, {
      inputFileId: body.input_file_id,
      endpoint: body.endpoint as BatchEndpoint,
      completionWindow: body.completion_window,
      metadata: body.metadata ?? null,
    });
    return encodeBatch(batch);
  });

  app.get('/v1/batches/:batch_id', { schema: { params: BatchParams }, config: { auth: 'key' } }, async (request) => {
    const { batch_id } = request.params as Static<typeof BatchParams>;
    return encodeBatch(await readBatch(context, request.principal!.accountId, batch_id));
  });

  app.get('/v1/batches', { schema: { querystring: ListQuery }, config: { auth: 'key' } }, async (request) => {
    const query = request.query as Static<typeof ListQuery>;
    const limit = query.limit ?? 20;
    const rows = await listBatches(context.store.db, request.principal!.accountId, { limit: limit + 1, after: query.after });
    return encodeListPage(rows, limit, encodeBatch);
  });

  app.post('/v1/batches/:batch_id/cancel', { schema: { params: BatchParams }, config: { auth: 'key' } }, async (request) => {
    const { batch_id } = request.params as Static<typeof BatchParams>;
    return encodeBatch(await cancelBatch(context, request.principal!.accountId, batch_id));
  });
}
