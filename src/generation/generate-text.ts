import type { AppContext } from '../app-context.js';
import type { DecodedTextCall } from '../core/text-call.js';
import { inClientTerms } from '../errors/in-client-terms.js';
import type { Principal } from '../auth/principal.js';
import { countRequestTokens, countTextTokens } from '../billing/count-tokens.js';
import { estimatePromptTokens } from '../billing/estimate-tokens.js';
import { PaidCall, type SettlementRecorder } from '../billing/paid-call.js';
import type { ApiEndpoint } from '../config/types.js';
import type { StreamPart } from '../core/stream-part.js';
import type { TextRequest } from '../core/text-request.js';
import type { TextResult } from '../core/text-result.js';
import type { Usage } from '../core/usage.js';
import type { Candidate } from '../catalog/candidate.js';
import { admitRequest } from '../limits/admit-request.js';
import { selectCandidates } from '../routing/select-candidates.js';
import { explainNoProvider } from '../routing/explain-no-provider.js';
import { callContextOf, tryCandidates } from '../routing/try-candidates.js';
import { GatewayError, invalidRequest } from '../errors/gateway-error.js';
import { preferServedEndpoint } from '../routing/prompt-cache-affinity.js';
import { endpointPricingOf } from '../catalog/catalog.js';
import { meterStream } from './meter-stream.js';
import { planPassThrough, type PassThroughInput } from './plan-pass-through.js';
import { dropUnmetPreferences } from './drop-unmet-preferences.js';
import { planReservation } from './plan-reservation.js';
import { hostedLoopTurns, hostedToolsCeiling, runHostedToolLoop } from './run-hosted-tool-loop.js';
import { streamHostedToolLoop } from './stream-hosted-tool-loop.js';
import { UpstreamError } from '../errors/upstream-error.js';
import { generateImages } from '../media/generate-images.js';
import { startRequestRecord } from '../billing/start-request-record.js';
import { emptyUsage } from '../core/usage.js';
import { truncateToContext } from './truncate-to-context.js';
import { relayText, type RelayOutcome } from './relay-text.js';
import { tagResultSignatures, untagRequestSignatures } from './tag-signatures.js';
import { RequestTrace } from '../telemetry/request-trace.js';
import type { CancelSignal } from '../core/cancel-signal.js';
import { withFields } from '../core/with-fields.js';

export interface TextGenerationInput {
  principal: Principal;
  call: DecodedTextCall;
  requestId: string;
  /** The inbound style; Gemini's `generateContent` serves the text models of `chat`. */
  api: Extract<ApiEndpoint, 'chat' | 'responses' | 'messages'> | 'gemini';
  /** Aborted when the client goes away. */
  signal: CancelSignal;
  /**
   * The request's log row writer (`startRequestRecord`): the paid call asks it for the row once,
   * whichever way the request ends, and commits that row together with the charge.
   */
  record?: SettlementRecorder;
  /**
   * The client's body as it came and its style's rules, for the native pass-through
   * (`plan-pass-through.ts`) when the chosen endpoint speaks the client's style; absent when
   * pass-through is off or the style has none.
   */
  passThrough?: PassThroughInput;
  /**
   * The response cache's part in the request (`api/shared/run-text-turn.ts`): asked for a stored
   * answer once the request is routed and admitted, so a hit is refused exactly as the live
   * request would be (the key's max prices, requests per minute, the free models' daily limit).
   */
  cache?: CachedAnswerSource;
}

/**
 * Answers a routed, admitted request from the response cache: the stored answer, charged, when
 * it is fresh and was served by one of `candidates` (an endpoint the request may use); otherwise
 * undefined, and the request goes to the provider.
 */
export interface CachedAnswerSource {
  answer(candidates: readonly Candidate[]): Promise<Extract<TextGenerationOutcome, { stream: false; relayed?: false }> | undefined>;
}

export type TextGenerationOutcome = (
  | { stream: false; relayed?: false; candidate: Candidate; result: TextResult; cost: bigint }
  | { stream: true; relayed?: false; candidate: Candidate; parts: AsyncIterable<StreamPart>; /** Call once the response is over. */ close(): Promise<void> }
  | (RelayOutcome & { candidate: Candidate })
) & {
  /** What the request preferred and this endpoint could not honour, in the client's field names (see drop-unmet-preferences.ts). */
  omitted: readonly string[];
};

/**
 * The text request path: route → reserve → call the provider → settle, in the candidate loop
 * shared with media and video (`routing/try-candidates.ts`). Fails over only until a stream has
 * produced its first part: adapters resolve `stream()` only then, so nothing has reached the
 * client while failing over.
 */
export async function generateText(context: AppContext, input: TextGenerationInput): Promise<TextGenerationOutcome> {
  const { principal } = input;
  // Tracing off: no tracer, no RequestTrace, and every `trace?.…` below is skipped.
  const trace = context.tracer === null ? undefined : startTrace(context.tracer, input);
  try {
    return await routeAndCall(context, input, trace);
  } catch (error) {
    trace?.failed(error);
    throw error;
  }
}

function startTrace(tracer: NonNullable<AppContext['tracer']>, input: TextGenerationInput): RequestTrace {
  const { request, route } = input.call;
  return new RequestTrace(tracer, { requestId: input.requestId, model: route.model, stream: request.stream, maxTokens: request.maxTokens, api: input.api });
}

async function routeAndCall(context: AppContext, input: TextGenerationInput, trace: RequestTrace | undefined): Promise<TextGenerationOutcome> {
  const { principal } = input;
  // A cache hit is a value, not a promise: no await (and no microtask) for it.
  const cachedDefaults = context.defaultProviders.get(principal.accountId);
  const defaults = cachedDefaults instanceof Promise ? await cachedDefaults : cachedDefaults;
  let selected: Candidate[];
  try {
    selected = selectCandidates({
      catalog: context.catalog,
      route: input.call.route,
      api: input.api === 'gemini' ? 'chat' : input.api,
      parameters: input.call.parameters,
      stream: input.call.request.stream,
      principal,
      defaultProviderOf: (modelId) => defaults.get(modelId),
      health: context.health,
    });
  } catch (error) {
    throw explainNoProvider(context.catalog, context.logger, input.call.route, error);
  }
  selected = withinOutputCap(selected, input.call.request);
  const fitted = truncateToContext(lowerToOutputCap(selected, input.call.request), selected);
  const call = fitted === input.call.request ? input.call : { ...input.call, request: fitted };
  trace?.routed(selected);
  const cacheKey = call.request.promptCacheKey;
  const candidates =
    cacheKey === undefined || call.route.provider !== undefined
      ? selected
      : preferServedEndpoint(selected, context.promptCacheAffinity.lookup(principal.accountId, cacheKey), context.health);
  const rememberServer = (candidate: Candidate) => {
    if (cacheKey !== undefined) context.promptCacheAffinity.remember(principal.accountId, cacheKey, candidate.healthKey);
  };
  await admitRequest(context, principal, candidates[0].model);
  if (input.cache !== undefined) {
    const hit = await input.cache.answer(candidates);
    if (hit !== undefined) {
      trace?.answeredFromCache(hit.cost);
      return hit;
    }
  }
  const prompt = estimatePromptTokens(call.request);
  let counted: Promise<number> | undefined;
  const countPrompt = () => (counted ??= countRequestTokens(call.request));
  const owner = { accountId: principal.accountId, keyId: principal.keyId, requestId: input.requestId };

  const { candidate, value } = await tryCandidates(context, candidates, input.signal, async (candidate, control) => {
    const hostedTools = context.config.hostedTools;
    const { request: preferred, omitted, gatewayTools } = dropUnmetPreferences(context.catalog, call, candidate, hostedTools);
    const hosted = gatewayTools && hostedTools ? { turns: hostedLoopTurns(hostedTools, gatewayTools), extra: hostedToolsCeiling(hostedTools, gatewayTools) } : undefined;
    const reserve = () => planReservation(context.ledger, candidate, preferred, prompt, owner, hosted);
    const planned = trace === undefined ? await reserve() : await trace.reserve(candidate, reserve);
    const request = untagRequestSignatures(planned.request, candidate.provider.api);
    const adapter = context.providers.textAdapter(candidate.provider.api);
    const callContext = callContextOf(context, candidate, input.signal);
    const pricingOf = (providerModel: string) => endpointPricingOf(context.catalog, candidate.provider.id, providerModel);
    // The request log records what was left out, in the row that commits with the charge.
    const paid = new PaidCall(planned.reservation, { ledger: context.ledger, candidate, record: input.record, trace, health: control.keepHealth, omitted, images: prompt.images, pricingOf });
    trace?.startAttempt(candidate, control.index);
    try {
      // The client's body still carries what was left out for this endpoint: translated instead.
      // A request the gateway runs tools for never goes through as the client sent it.
      const passThrough = omitted.length === 0 && !gatewayTools && adapter.relay ? planPassThrough(input.passThrough, candidate, planned.request) : undefined;
      if (passThrough && adapter.relay) {
        const relayed = await relayText(adapter.relay, { call: paid, plan: passThrough, request, requestId: input.requestId, callContext, countPrompt });
        if (relayed.stream) trace?.firstChunk();
        rememberServer(candidate);
        return withFields(relayed, { omitted });
      }
      if (gatewayTools && hostedTools) {
        const loopInput = {
          adapter,
          callContext,
          request,
          gatewayTools,
          hostedTools,
          pricing: candidate.endpoint.pricing,
          pricingOf,
          inputImages: prompt.images,
          signal: input.signal,
          logger: context.logger,
          ...(gatewayTools.imageGeneration && hostedTools.imageGeneration && { generateImage: imageMaker(context, input, hostedTools.imageGeneration.model) }),
        };
        const settle = async (looped: { result: TextResult; cost: bigint }) => {
          const result = tagResultSignatures(looped.result, candidate.provider.api);
          // The loop priced each turn apart (input images on the first only) and added its searches.
          return { result, charged: await paid.settle(result.usage, 'completed', { cost: looped.cost }) };
        };
        if (!request.stream) {
          const { result, charged } = await settle(await runHostedToolLoop(loopInput));
          rememberServer(candidate);
          return { stream: false as const, relayed: false as const, result, cost: charged, omitted };
        }
        // Streamed: the tool calls' progress goes out as it happens, the answer when the loop is done.
        const parts = await streamHostedToolLoop({
          run: (onProgress) => runHostedToolLoop({ ...loopInput, onProgress }),
          settle,
          // A loop that fails once streaming costs nothing, as one that fails before; its row says why.
          fail: async (error) => {
            trace?.attemptFailed(error);
            // The client leaving ends the search or the model turn with whatever error they raise.
            const code = input.signal.aborted ? 'aborted' : error instanceof UpstreamError ? error.code : 'internal_error';
            const usage = { promptTokens: 0, completionTokens: 0 };
            try {
              await (code === 'aborted'
                ? paid.settle(usage, 'aborted', { cost: 0n, errorCode: 'client_closed' })
                : paid.settle(usage, 'failed', { cost: 0n, errorCode: code }));
            } catch (settleError) {
              context.logger.error({ err: settleError, requestId: input.requestId }, 'a failed hosted-tool stream could not be settled');
            }
          },
        });
        trace?.firstChunk();
        rememberServer(candidate);
        return { stream: true as const, relayed: false as const, parts, close: async () => undefined, omitted };
      }
      if (!request.stream) {
        const result = tagResultSignatures(await adapter.generate(request, callContext), candidate.provider.api);
        const usage = result.usage.estimated ? await estimateResultUsage(result, countPrompt) : result.usage;
        // The request log row commits together with the charge (its cost is what was charged).
        const charged = await paid.settle(usage, 'completed');
        rememberServer(candidate);
        return { stream: false as const, relayed: false as const, result: { ...result, usage }, cost: charged, omitted };
      }
      const parts = await adapter.stream(request, callContext);
      trace?.firstChunk();
      // From here the meter settles the paid call and reports to the breaker when the stream ends.
      const metered = meterStream(parts, paid, countPrompt);
      rememberServer(candidate);
      return { stream: true as const, relayed: false as const, parts: metered.parts, close: metered.close, omitted };
    } catch (error) {
      await paid.abort(error);
      if (error instanceof GatewayError) throw inClientTerms(error, call.parameters);
      throw error;
    }
  });
  return withFields(value, { candidate });
}

/**
 * Endpoints whose output cap admits the client's `max_tokens`. When none does, a value the model
 * could in principle be asked for (at most its context length — an agent's default such as Claude
 * Code's 32,000) is lowered to the largest cap, as a documented rule (docs/api-decisions.md §4);
 * a value beyond the context length is a mistake and a 400 naming the cap.
 */
function withinOutputCap(candidates: Candidate[], request: TextRequest): Candidate[] {
  const { maxTokens } = request;
  if (maxTokens === undefined) return candidates;
  const fitting = candidates.filter((candidate) => admitsOutput(candidate, maxTokens));
  if (fitting.length > 0) return fitting;
  const cap = outputCap(candidates);
  const contextLength = candidates[0].model.contextLength;
  if (contextLength !== null && maxTokens <= contextLength) return candidates;
  throw invalidRequest(
    `The maximum output tokens requested (${maxTokens}) is above what '${candidates[0].model.id}' can produce (${cap}): send max_tokens (max_output_tokens on /responses) of at most ${cap}, or leave it out`,
    'max_tokens',
  );
}

/**
 * The request with `max_tokens` lowered to the largest cap when no endpoint admits it (the rule
 * of `withinOutputCap`): a copy, since the decoded request is the API layer's.
 */
function lowerToOutputCap(candidates: Candidate[], request: TextRequest): TextRequest {
  const { maxTokens } = request;
  if (maxTokens === undefined || candidates.some((candidate) => admitsOutput(candidate, maxTokens))) return request;
  return withFields(request, { maxTokens: outputCap(candidates) });
}

function admitsOutput(candidate: Candidate, maxTokens: number): boolean {
  return candidate.endpoint.maxCompletionTokens === null || candidate.endpoint.maxCompletionTokens >= maxTokens;
}

function outputCap(candidates: Candidate[]): number {
  return Math.max(...candidates.map((candidate) => candidate.endpoint.maxCompletionTokens ?? 0));
}

/**
 * Images for a text model's `image_generation` tool: each one a request of its own on the images
 * path (routed, reserved and charged at the image model's price, with its own request log row,
 * `{request id}-image-{n}`), so that the text request's charge stays what its tokens cost.
 */
function imageMaker(context: AppContext, input: TextGenerationInput, model: string): (prompt: string) => Promise<{ base64: string; mediaType: string }> {
  let count = 0;
  return async (prompt) => {
    count += 1;
    const requestId = `${input.requestId}-image-${count}`;
    const record = startRequestRecord(context, { requestId, principal: input.principal, endpoint: '/images/generations', body: { model } });
    try {
      const outcome = await generateImages(context, {
        principal: input.principal,
        requestId,
        route: { model, fallbackModels: [] },
        request: { operation: 'generate', prompt, n: 1, images: [] },
        imageUrls: [],
        responseFormat: 'b64_json',
        signal: input.signal,
        record,
      });
      if (outcome.kind !== 'completed' || outcome.images.length === 0) throw new Error('the image model did not finish in time');
      record.settled(outcome.candidate, { usage: { ...emptyUsage }, cost: outcome.cost, status: 'completed' });
      return { base64: outcome.images[0].bytes.toString('base64'), mediaType: outcome.images[0].contentType };
    } catch (error) {
      await record.failed(error);
      throw error;
    }
  };
}

/** Usage counted with the tokenizer, for an answer whose provider reported none. */
async function estimateResultUsage(result: TextResult, countPrompt: () => Promise<number>): Promise<Usage> {
  let text = '';
  for (const part of result.content) text += part.type === 'tool-call' ? part.name + part.arguments : part.text;
  return { promptTokens: await countPrompt(), completionTokens: await countTextTokens(text), estimated: true };
}
