import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { startRequestRecord } from '../../billing/start-request-record.js';
import type { ImageOperation } from '../../core/image-request.js';
import { emptyUsage } from '../../core/usage.js';
import { invalidRequest } from '../../errors/gateway-error.js';
import { generateImages } from '../../media/generate-images.js';
import { mediaSettingsOf } from '../../media/media-settings.js';
import { abortOnClientClose } from '../../http/abort-on-client-close.js';
import { decodeImageRequest } from './decode-image-request.js';
import { encodeImagesResponse, inlineImages, storedImages } from './encode-images-response.js';
import { maxEditImages } from './image-request-schema.js';
import { encodeMediaRequestStatus } from './encode-media-request.js';
import { readEditForm } from './read-edit-form.js';

/**
 * POST /v1/images/generations (JSON) and /v1/images/edits (JSON with `images: [{image_url}]`, or
 * OpenAI's multipart form), answering OpenAI's images shape, or 202 with a polling URL when a
 * queued provider job outlives `media.sync_window_ms`.
 */
export function registerImageRoutes(app: FastifyInstance, context: AppContext): void {
  app.post('/v1/images/generations', { schema: { body: { type: 'object' } }, config: { auth: 'key' } }, (request, reply) =>
    handleImageRequest(context, 'generate', request, reply, request.body as Record<string, unknown>),
  );
  // Multipart parsing is scoped to this route: no other endpoint accepts form bodies.
  void app.register(async (scope) => {
    await scope.register(fastifyMultipart, {
      limits: { fileSize: mediaSettingsOf(context).fetchMaxBytes, files: maxEditImages, fields: 32, fieldSize: 64 * 1024, parts: maxEditImages + 32 },
    });
    scope.post('/v1/images/edits', { config: { auth: 'key' } }, async (request, reply) => {
      const body = request.isMultipart() ? await readEditForm(request) : request.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest('Request body must be a JSON object or a multipart form');
      return handleImageRequest(context, 'edit', request, reply, body as Record<string, unknown>);
    });
  });
}

async function handleImageRequest(context: AppContext, operation: ImageOperation, request: FastifyRequest, reply: FastifyReply, body: Record<string, unknown>): Promise<unknown> {
  const principal = request.principal!;
  const endpoint = operation === 'edit' ? '/images/edits' : '/images/generations';
  const record = startRequestRecord(context, { requestId: request.id, principal, endpoint, body });
  const signal = abortOnClientClose(reply);
  let outcome: Awaited<ReturnType<typeof generateImages>>;
  try {
    const decoded = decodeImageRequest(context.catalog, body, operation);
    outcome = await generateImages(context, {
      principal,
      requestId: request.id,
      route: decoded.route,
      request: decoded.request,
      imageUrls: decoded.imageUrls,
      responseFormat: decoded.responseFormat,
      signal,
      // The charge and its log row commit together (a queued job's row is the task engine's).
      record,
    });
  } catch (error) {
    await record.failed(error);
    throw error;
  }
  reply.header('x-switchyard-provider', outcome.candidate.provider.id);
  if (outcome.kind === 'queued') {
    // The task engine writes this request's log row when the task ends, with its final cost.
    return reply.code(202).send({ data: encodeMediaRequestStatus(outcome.task) });
  }
  const created = Math.floor(context.clock.now().getTime() / 1000);
  const data = outcome.fileIds ? await storedImages(context, principal.accountId, outcome.fileIds, 'url', originOf(request)) : inlineImages(outcome.images);
  record.settled(outcome.candidate, { usage: { ...emptyUsage }, cost: outcome.cost, status: 'completed' });
  await record.admitted;
  return reply.send(encodeImagesResponse(created, data, outcome.cost));
}

/** The origin the client called, for absolute gateway URLs. */
export function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}
