import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { handleTextRequest, type TextStyle } from '../shared/handle-text-request.js';
import { decodeResponsesRequest } from './decode-request.js';
import { encodeResponsesResponse } from './encode-response.js';
import { encodeResponsesStream } from './encode-stream.js';
import type { ResponsesEcho } from './responses-echo.js';

/** POST /v1/responses in OpenAI's Responses style, stateless, for every text model. */
export function registerResponsesRoutes(app: FastifyInstance, context: AppContext): void {
  const style: TextStyle<ResponsesEcho> = {
    api: 'responses',
    decode: (body) => {
      const { call, echo } = decodeResponsesRequest(body);
      return { call, extra: echo };
    },
    encodeResponse: (result, meta, cost, echo) => encodeResponsesResponse(result, meta, cost, echo, { clock: context.clock }),
    encodeStream: (parts, meta, echo) => encodeResponsesStream(parts, meta, echo, { clock: context.clock }),
    heartbeatFrame: ': keep-alive\n\n',
  };
  app.post('/v1/responses', { schema: { body: { type: 'object' } }, config: { auth: 'key' } }, (request, reply) =>
    handleTextRequest(context, style, request, reply),
  );
}
