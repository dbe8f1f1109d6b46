import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { countRequestTokens } from '../../billing/count-tokens.js';
import type { TextRequest } from '../../core/text-request.js';
import type { RouteRequest } from '../../core/provider-preferences.js';
import { GatewayError, invalidRequest } from '../../errors/gateway-error.js';
import { countAnthropicTokens } from '../../providers/anthropic/count-tokens.js';
import type { Candidate } from '../../catalog/candidate.js';
import { selectCandidates } from '../../routing/select-candidates.js';
import { callContextOf } from '../../routing/try-candidates.js';
import { decodeMessagesRequest } from './decode-request.js';

/** Says where the count came from: the provider's own count_tokens, or the gateway's tokenizer. */
export const TOKEN_COUNT_HEADER = 'x-switchyard-token-count';

/**
 * POST /v1/messages/count_tokens, Anthropic's shape (`{input_tokens}`), which Anthropic-style
 * clients call before sending a long conversation. The body is a Messages request without
 * `max_tokens`, checked by the same decoder. When the endpoint routing would choose speaks
 * Anthropic's protocol, Anthropic counts (its tokenizer is the one the request is billed by);
 * otherwise, or when that call fails, the gateway's own tokenizer counts (the one it bills by
 * when a provider reports no usage). The header says which. Free of charge.
 */
export function registerCountTokensRoute(app: FastifyInstance, context: AppContext): void {
  app.post('/v1/messages/count_tokens', { schema: { body: { type: 'object' } }, config: { auth: 'key', errorStyle: 'anthropic' } }, async (request, reply) => {
    const body = request.body as Record<string, unknown>;
    if (body.max_tokens !== undefined) throw invalidRequest("'max_tokens' is not a field of count_tokens", 'max_tokens');
    const call = decodeMessagesRequest({ ...body, max_tokens: 1 }, request.headers);
    const model = context.catalog.modelById.get(call.route.model);
    if (!model || !model.outputModalities.includes('text')) {
      throw new GatewayError('no_available_provider', `No text model '${call.route.model}' on /messages/count_tokens; GET /v1/models lists the models`);
    }
    const candidate = await chooseEndpoint(context, request, call.route);
    // Anthropic's own API counts; a cloud hosting Claude (Vertex) is answered with the local estimate.
    if (candidate?.provider.api === 'anthropic' && candidate.provider.platform === undefined) {
      const counted = await countAtProvider(context, request, reply, candidate, call.request);
      if (counted !== undefined) {
        reply.header(TOKEN_COUNT_HEADER, 'provider');
        return { input_tokens: counted };
      }
    }
    reply.header(TOKEN_COUNT_HEADER, 'estimated');
    return { input_tokens: await countRequestTokens(call.request) };
  });
}

/**
 * The endpoint a generation request would try first. Parameters are not checked: counting asks
 * nothing of the model. Undefined when no endpoint is eligible (the local count still answers).
 */
async function chooseEndpoint(context: AppContext, request: FastifyRequest, route: RouteRequest): Promise<Candidate | undefined> {
  const principal = request.principal!;
  const defaults = await context.defaultProviders.get(principal.accountId);
  try {
    return selectCandidates({
      catalog: context.catalog,
      route,
      api: 'messages',
      parameters: [],
      stream: false,
      principal,
      defaultProviderOf: (modelId) => defaults.get(modelId),
      health: context.health,
    })[0];
  } catch {
    return undefined;
  }
}

/** Anthropic's count, or undefined (logged) when the provider could not give one. */
async function countAtProvider(
  context: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  candidate: Candidate,
  textRequest: TextRequest,
): Promise<number | undefined> {
  // The client leaving closes the upstream call too.
  const controller = new AbortController();
  const abort = () => {
    if (!reply.raw.writableFinished) controller.abort();
  };
  reply.raw.once('close', abort);
  const version = request.headers['anthropic-version'];
  try {
    return await countAnthropicTokens(textRequest, callContextOf(context, candidate, controller.signal), typeof version === 'string' ? version : undefined);
  } catch (error) {
    request.log.warn({ err: error, provider: candidate.provider.id }, 'count_tokens at the provider failed; answering the local estimate');
    return undefined;
  } finally {
    reply.raw.off('close', abort);
  }
}
