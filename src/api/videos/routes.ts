import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { startRequestRecord } from '../../billing/start-request-record.js';
import { nanoToUsd } from '../../core/money.js';
import { invalidRequest, notFound } from '../../errors/gateway-error.js';
import { createVideo, quoteVideo } from '../../videos/create-video.js';
import { openVideoContent } from '../../videos/open-video-content.js';
import type { VideoRequestBody } from '../../videos/video-request.js';
import { encodeCreatedVideo, encodeVideo } from './encode-video.js';
import { encodeVideoModels } from './encode-video-models.js';
import { readMultipartBody } from './read-multipart-body.js';
import { ContentQuerySchema, TaskParamsSchema, VideoBodySchema } from './video-schemas.js';
import { abortOnClientClose } from '../../http/abort-on-client-close.js';

type TaskParams = { task_id: string };

/**
 * The video endpoints (docs/api-decisions.md §6): create a task, read it, stream its content, list the video
 * models, quote. Registered in their own scope, whose multipart parser (OpenAI's SDK uploads
 * `videos.create` as a form) touches no other route.
 */
export function registerVideoRoutes(app: FastifyInstance, context: AppContext): void {
  app.register(async (scope) => {
    if (scope.hasContentTypeParser('multipart/form-data')) scope.removeContentTypeParser('multipart/form-data');
    scope.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (request, payload, done) => {
      readMultipartBody(payload as Buffer, request.headers['content-type'] ?? '').then((body) => done(null, body), (error: Error) => done(error));
    });

    scope.get('/v1/videos/models', { config: { auth: 'optional' } }, async () => ({ data: encodeVideoModels(context.catalog), next_cursor: null }));

    scope.post<{ Body: VideoRequestBody }>('/v1/videos/quote', { schema: { body: VideoBodySchema }, config: { auth: 'optional' } }, async (request) => {
      const amount = await quoteVideo(context, request.principal, request.body);
      return { data: { amount: nanoToUsd(amount), currency: 'USD' } };
    });

    scope.post<{ Body: VideoRequestBody }>('/v1/videos', { schema: { body: VideoBodySchema }, config: { auth: 'key' } }, (request, reply) =>
      handleCreate(context, request, reply),
    );

    scope.get<{ Params: TaskParams }>('/v1/videos/:task_id', { schema: { params: TaskParamsSchema }, config: { auth: 'key' } }, async (request) => {
      const task = await context.tasks.find(request.principal!.accountId, request.params.task_id);
      if (!task || task.kind !== 'video') throw notFound(`Video '${request.params.task_id}'`);
      return encodeVideo(task);
    });

    scope.get<{ Params: TaskParams }>(
      '/v1/videos/:task_id/content',
      { schema: { params: TaskParamsSchema, querystring: ContentQuerySchema }, config: { auth: 'key' } },
      (request, reply) => handleContent(context, request, reply),
    );
  });
}

async function handleCreate(context: AppContext, request: FastifyRequest<{ Body: VideoRequestBody }>, reply: FastifyReply): Promise<FastifyReply> {
  const principal = request.principal!;
  const record = startRequestRecord(context, { requestId: request.id, principal, endpoint: '/videos', body: request.body as unknown as Record<string, unknown> });
  try {
    // A client that leaves mid-submission does not abort it: the job is recorded all the same,
    // and a retry with the same Idempotency-Key finds it instead of paying for a second one.
    const outcome = await createVideo(context, { principal, body: request.body, requestId: request.id, idempotencyKey: readIdempotencyKey(request) });
    if (outcome.replayed) reply.header('idempotent-replayed', 'true');
    return reply.code(202).send(encodeCreatedVideo(outcome.task));
  } catch (error) {
    // The task's own row is written when it ends; a refused or failed creation gets one now.
    await record.failed(error);
    throw error;
  }
}

async function handleContent(context: AppContext, request: FastifyRequest<{ Params: TaskParams }>, reply: FastifyReply): Promise<FastifyReply> {
  const cancellation = abortOnClientClose(reply);
  // A provider failure reaches the error handler, which maps it as the candidate loop does.
  const opened = await openVideoContent(context, request.principal!.accountId, request.params.task_id, cancellation);
  const { response } = opened;
  const type = response.headers['content-type'];
  const length = response.headers['content-length'];
  reply.header('content-type', typeof type === 'string' && !type.startsWith('application/json') ? type : 'video/mp4');
  if (typeof length === 'string') reply.header('content-length', length);
  reply.header('content-disposition', `inline; filename="${opened.task.id}.mp4"`);
  return reply.send(response.body);
}

/** `Idempotency-Key`: one printable token of up to 255 characters. */
function readIdempotencyKey(request: FastifyRequest): string | null {
  const value = request.headers['idempotency-key'];
  if (value === undefined) return null;
  const key = Array.isArray(value) ? value[0] : value;
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw invalidRequest('Idempotency-Key must be 1 to 255 printable ASCII characters', 'Idempotency-Key');
  return key;
}
