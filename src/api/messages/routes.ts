import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { handleTextRequest, type TextStyle } from '../shared/handle-text-request.js';
import { registerCountTokensRoute } from './count-tokens-route.js';
import { decodeMessagesRequest } from './decode-request.js';
import { encodeMessagesResponse } from './encode-response.js';
import { encodeMessagesStream, errorEvent } from './encode-stream.js';
import { encodeRelayedUsage } from './encode-usage.js';
import { messagesFieldTable } from './field-table.js';
import { passThroughRules } from '../shared/pass-through-rules.js';

/** Also the style of a batch's lines for this endpoint (api/batches/run-batch-line.ts). */
export const messagesStyle: TextStyle<undefined> = {
  api: 'messages',
  decode: (body, headers) => ({ call: decodeMessagesRequest(body, headers), extra: undefined }),
  encodeResponse: (result, meta, cost) => encodeMessagesResponse(result, meta, cost),
  encodeStream: (parts, meta) => encodeMessagesStream(parts, meta),
  // Anthropic's own keep-alive is a ping event, which its SDK expects and ignores.
  heartbeatFrame: 'event: ping\ndata: {"type":"ping"}\n\n',
  relay: { rules: passThroughRules(messagesFieldTable, 'anthropic', ['models', 'provider']), encodeUsage: encodeRelayedUsage, errorFrames: (error, meta) => [errorEvent(error, meta)] },
};

/**
 * POST /v1/messages in Anthropic's style (x-api-key accepted; `?beta=true`, which the SDK's beta
 * client adds, accepted like any query), for every text model. `anthropic-beta` reaches
 * anthropic-wire providers; the wire format is the 2023-06-01 one. Errors use Anthropic's shape.
 */
export function registerMessagesRoutes(app: FastifyInstance, context: AppContext): void {
  app.post('/v1/messages', { schema: { body: { type: 'object' } }, config: { auth: 'key', errorStyle: 'anthropic' } }, (request, reply) =>
    handleTextRequest(context, messagesStyle, request, reply),
  );
  registerCountTokensRoute(app, context);
}
