import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { isGeminiStyleRequest } from '../../errors/error-style-of.js';
import { handleTextRequest, type TextStyle } from '../shared/handle-text-request.js';
import { passThroughRules } from '../shared/pass-through-rules.js';
import { geminiFieldTable } from './field-table.js';
import { answerCountTokens } from './count-tokens.js';
import { answerEmbeddings } from './answer-embeddings.js';
import { decodeGeminiRequest } from './decode-request.js';
import { encodeGeminiResponse } from './encode-response.js';
import { encodeStreamError } from './encode-error.js';
import { encodeRelayedChunks, encodeRelayedUsage } from './encode-relayed-stream.js';
import { encodeGeminiChunks, frameJsonArray, frameSse } from './encode-stream.js';
import { registerGeminiModelRoutes } from './model-routes.js';
import { readModelAction } from './read-model-action.js';

interface GeminiExtra {
  /** `?alt=sse`: server-sent events; without it, one JSON array written as it grows. */
  sse: boolean;
}

function actionOf(request: FastifyRequest) {
  return readModelAction((request.params as { '*': string })['*']);
}

const geminiStyle: TextStyle<GeminiExtra> = {
  api: 'gemini',
  decode: (body, _headers, request) => {
    const { model, action } = actionOf(request);
    const stream = action === 'streamGenerateContent';
    return { call: decodeGeminiRequest(body, model, stream), extra: { sse: (request.query as { alt?: unknown }).alt === 'sse' } };
  },
  describe: (request) => {
    const { model, action } = actionOf(request);
    return { endpoint: `/models/{model}:${action}`, model, stream: action === 'streamGenerateContent' };
  },
  encodeResponse: (result, meta, cost) => encodeGeminiResponse(result, meta, cost),
  encodeStream: (parts, meta, extra) => (extra.sse ? frameSse : frameJsonArray)(encodeGeminiChunks(parts, meta)),
  relay: {
    // `model` is in the URL: a body that repeats it does not send it on.
    rules: passThroughRules(geminiFieldTable, 'gemini', ['models', 'provider', 'model']),
    usageField: 'usageMetadata',
    encodeUsage: encodeRelayedUsage,
    errorFrames: (error, meta) => [JSON.stringify(encodeStreamError(error, meta))],
  },
  encodeRelayedStream: (parts, meta, extra) => (extra.sse ? frameSse : frameJsonArray)(encodeRelayedChunks(parts, meta)),
  // An SSE comment: the SDKs read only `data:` events.
  heartbeatFrame: ':\r\n\r\n',
  streamFraming: (extra) => (extra.sse ? { contentType: 'text/event-stream; charset=utf-8', heartbeatFrame: ':\r\n\r\n' } : { contentType: 'application/json; charset=utf-8', heartbeatFrame: '\n' }),
};

/** The `/v1` call route's check that its wildcard holds a call, before the body is read. */
function answerUnlessCall(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (isGeminiStyleRequest(request.method, request.url)) return done();
  reply.callNotFound();
}

/**
 * Gemini's `generateContent` style (contract §4), for every text model: `POST
 * {version}/models/{model}:generateContent`, `:streamGenerateContent` (`?alt=sse`, or a JSON
 * array) and `:countTokens`; and for every embedding model `:embedContent` and
 * `:batchEmbedContents` (contract §9, `answer-embeddings.ts`), under `/v1beta` (where Google's SDKs and Gemini CLI send them) and
 * `/v1`, plus `GET /v1beta/models` and `/v1beta/models/{model}` in Gemini's shape (`/v1/models`
 * stays the OpenRouter catalog). The key may come as `x-goog-api-key` or `?key=` besides
 * `Authorization`. Errors use Google's shape (which requests: `errors/error-style-of.ts`).
 */
export function registerGeminiRoutes(app: FastifyInstance, context: AppContext): void {
  const config = { auth: 'key' as const, errorStyle: 'gemini' as const, keyInQuery: true };
  const handle = (request: FastifyRequest, reply: FastifyReply) => {
    const { model, action } = actionOf(request);
    if (action === 'countTokens') return answerCountTokens(context, request, reply);
    if (action === 'embedContent' || action === 'batchEmbedContents') return answerEmbeddings(context, request, reply, model, action);
    return handleTextRequest(context, geminiStyle, request, reply);
  };
  app.post('/v1beta/models/*', { schema: { body: { type: 'object' } }, config }, handle);
  // `/v1/models/*` also matches the catalog's paths (`/v1/models/{id}/endpoints`): one that is not
  // a `{model}:{method}` call is answered as a path with no route (404, or 405 naming the
  // catalog's methods), in the envelope, before its body is read.
  app.post('/v1/models/*', { schema: { body: { type: 'object' } }, config, onRequest: answerUnlessCall }, handle);
  registerGeminiModelRoutes(app, context, config);
}
