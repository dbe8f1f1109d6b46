import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { handleTextRequest, type TextStyle } from '../shared/handle-text-request.js';
import { decodeChatCompletionsRequest } from './decode-request.js';
import { encodeChatCompletionsResponse } from './encode-response.js';
import { done, encodeChatCompletionsStream, errorFrame } from './encode-stream.js';
import { encodeUsage } from './encode-usage.js';
import { chatCompletionsFieldTable } from './field-table.js';
import { passThroughRules } from '../shared/pass-through-rules.js';

/** Also the style of a batch's lines for this endpoint (api/batches/run-batch-line.ts). */
export const chatStyle: TextStyle<undefined> = {
  api: 'chat',
  decode: (body) => ({ call: decodeChatCompletionsRequest(body), extra: undefined }),
  encodeResponse: (result, meta, cost) => encodeChatCompletionsResponse(result, meta, cost),
  encodeStream: (parts, meta) => encodeChatCompletionsStream(parts, meta),
  heartbeatFrame: ': keep-alive\n\n',
  relay: { rules: passThroughRules(chatCompletionsFieldTable, 'openai', ['models', 'provider', 'usage']), encodeUsage, errorFrames: (error, meta) => [errorFrame(error, meta), done] },
};

/** POST /v1/chat/completions in OpenAI's style, for every text model. */
export function registerChatCompletionsRoutes(app: FastifyInstance, context: AppContext): void {
  app.post('/v1/chat/completions', { schema: { body: { type: 'object' } }, config: { auth: 'key' } }, (request, reply) =>
    handleTextRequest(context, chatStyle, request, reply),
  );
}
