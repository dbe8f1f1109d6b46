import { Readable } from 'node:stream';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { cancelMessageBatch, countMessageBatch, createMessageBatch, isEnded, readEndedLines, readMessageBatch } from '../../batches/create-message-batch.js';
import type { BatchRecord } from '../../batches/db/batches.js';
import { listMessageBatches } from '../../batches/db/message-batches.js';
import { invalidRequest } from '../../errors/gateway-error.js';
import { originOf } from '../media/image-routes.js';
import { encodeMessageBatch, encodeMessageBatchResult } from './encode-message-batch.js';

// Anthropic's limits: up to 100,000 requests a batch; `custom_id` 1–64 of [a-zA-Z0-9_-].
const CreateMessageBatchBody = Type.Object(
  {
    requests: Type.Array(
      Type.Object(
        {
          custom_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-zA-Z0-9_-]{1,64}$' }),
          params: Type.Object({}, { additionalProperties: true }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100_000 },
    ),
  },
  { additionalProperties: false },
);
const MessageBatchParams = Type.Object({ message_batch_id: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
const ListQuery = Type.Object(
  {
    before_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    after_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    // The SDK's beta client adds `?beta=true`.
    beta: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const BetaQuery = Type.Object({ beta: Type.Optional(Type.String()) }, { additionalProperties: false });

/** Results are read from the lines in chunks, so a large batch is never held whole. */
const resultsChunk = 100;

/**
 * Anthropic's Message Batches API (contract §9) over the gateway's batch engine, for the
 * Anthropic SDK's `messages.batches`: create, retrieve, list, cancel and results
 * (https://docs.anthropic.com/en/api/creating-message-batches). Any catalog text model serving
 * Messages may be named, whatever its provider; each request runs as a live `/v1/messages`
 * request and is charged as one. Auth and errors as the Messages style (x-api-key, Anthropic's
 * error shape).
 */
export function registerMessageBatchRoutes(app: FastifyInstance, context: AppContext): void {
  const config = { auth: 'key', errorStyle: 'anthropic' } as const;
  const encode = async (batch: BatchRecord, origin: string) => encodeMessageBatch(batch, await countMessageBatch(context, batch), origin);

  app.post('/v1/messages/batches', { schema: { body: CreateMessageBatchBody, querystring: BetaQuery }, config }, async (request) => {
    const body = request.body as Static<typeof CreateMessageBatchBody>;
    return encode(await createMessageBatch(context, request.principal!, body.requests), originOf(request));
  });

  app.get('/v1/messages/batches/:message_batch_id', { schema: { params: MessageBatchParams, querystring: BetaQuery }, config }, async (request) => {
    const { message_batch_id } = request.params as Static<typeof MessageBatchParams>;
    return encode(await readMessageBatch(context, request.principal!.accountId, message_batch_id), originOf(request));
  });

  app.get('/v1/messages/batches', { schema: { querystring: ListQuery }, config }, async (request) => {
    const query = request.query as Static<typeof ListQuery>;
    if (query.before_id !== undefined && query.after_id !== undefined) throw invalidRequest('Send `before_id` or `after_id`, not both', 'before_id');
    const page = await listMessageBatches(context.store.db, request.principal!.accountId, { limit: query.limit ?? 20, beforeId: query.before_id, afterId: query.after_id });
    const origin = originOf(request);
    const data = [];
    for (const batch of page.rows) data.push(await encode(batch, origin));
    return { data, has_more: page.hasMore, first_id: page.rows[0]?.id ?? null, last_id: page.rows[page.rows.length - 1]?.id ?? null };
  });

  app.post('/v1/messages/batches/:message_batch_id/cancel', { schema: { params: MessageBatchParams, querystring: BetaQuery }, config }, async (request) => {
    const { message_batch_id } = request.params as Static<typeof MessageBatchParams>;
    return encode(await cancelMessageBatch(context, request.principal!.accountId, message_batch_id), originOf(request));
  });

  app.get('/v1/messages/batches/:message_batch_id/results', { schema: { params: MessageBatchParams, querystring: BetaQuery }, config }, async (request, reply) => {
    const { message_batch_id } = request.params as Static<typeof MessageBatchParams>;
    const batch = await readMessageBatch(context, request.principal!.accountId, message_batch_id);
    if (!isEnded(batch)) throw invalidRequest(`Message batch ${batch.id} has not ended yet: its results are available once processing_status is "ended"`);
    async function* results(): AsyncGenerator<string> {
      for await (const line of readEndedLines(context, batch, resultsChunk)) {
        const result = encodeMessageBatchResult(line);
        if (result) yield `${JSON.stringify(result)}\n`;
      }
    }
    return reply.header('content-type', 'application/binary').send(Readable.from(results()));
  });
}
