import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { notFound } from '../../errors/gateway-error.js';
import { imageTaskKind, type ImageTaskResult } from '../../media/image-task-input.js';
import { readMediaFile } from '../../media/media-files.js';
import { encodeImagesResponse, storedImages } from './encode-images-response.js';
import { encodeMediaRequestStatus } from './encode-media-request.js';
import { originOf } from './image-routes.js';

/**
 * GET /v1/media/requests/{id}: where an asynchronous image request stands, with the images once
 * it is completed. GET /v1/media/files/{id}: a gateway-served image. Both are the account's
 * only: anything else is 404.
 */
export function registerMediaRequestRoutes(app: FastifyInstance, context: AppContext): void {
  app.get<{ Params: { id: string } }>('/v1/media/requests/:id', { config: { auth: 'key' } }, async (request) => {
    const principal = request.principal!;
    const task = await context.tasks.find(principal.accountId, request.params.id);
    if (!task || task.kind !== imageTaskKind) throw notFound(`Media request '${request.params.id}'`);
    const status = encodeMediaRequestStatus(task);
    const result = task.result as ImageTaskResult | null;
    if (task.status !== 'completed' || !result) return { data: status };
    const data = await storedImages(context, principal.accountId, result.files, result.responseFormat, originOf(request));
    return { data: { ...status, result: encodeImagesResponse(result.created, data, task.cost ?? 0n) } };
  });

  app.get<{ Params: { id: string } }>('/v1/media/files/:id', { config: { auth: 'key' } }, async (request, reply) => {
    const file = await readMediaFile(context, request.principal!.accountId, request.params.id);
    if (!file) throw notFound(`Media file '${request.params.id}'`);
    return reply.type(file.contentType).header('cache-control', 'private, max-age=3600').send(file.data);
  });
}
