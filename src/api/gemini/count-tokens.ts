import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { countRequestTokens } from '../../billing/count-tokens.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { TOKEN_COUNT_HEADER } from '../messages/count-tokens-route.js';
import { isAbsent, readObject } from '../shared/read-json-fields.js';
import { decodeGeminiRequest } from './decode-request.js';
import { readCamelCase } from '../../wire/gemini/read-camel-case.js';
import { readModelAction } from './read-model-action.js';


/**
 * `:countTokens`, Gemini's shape (`{totalTokens}`): the body is `contents`, or a whole
 * `generateContentRequest` (with its system instruction and tools), checked by the generation
 * decoder. The gateway's tokenizer counts, the one it bills by when a provider reports no usage.
 * Free of charge. https://ai.google.dev/api/tokens#method:-models.counttokens
 */
export async function answerCountTokens(context: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<Record<string, unknown>> {
  const { model } = readModelAction((request.params as { '*': string })['*']);
  const body = readCamelCase(request.body as Record<string, unknown>);
  for (const key of Object.keys(body)) {
    if (key !== 'contents' && key !== 'generateContentRequest') throw new GatewayError('invalid_request', `Unsupported parameter: '${key}' is not supported: countTokens takes contents or generateContentRequest.`, { param: key });
  }
  const inner = isAbsent(body.generateContentRequest) ? { contents: body.contents } : readObject(body.generateContentRequest, 'generateContentRequest');
  const call = decodeGeminiRequest(inner, model, false);
  const known = context.catalog.modelById.get(call.route.model);
  if (!known || !known.outputModalities.includes('text')) {
    throw new GatewayError('no_available_provider', `No text model '${call.route.model}' on models/{model}:countTokens; GET /v1beta/models lists the models`);
  }
  // Where the count came from, as on /messages/count_tokens: here always the gateway's tokenizer.
  reply.header(TOKEN_COUNT_HEADER, 'estimated');
  return { totalTokens: await countRequestTokens(call.request) };
}
