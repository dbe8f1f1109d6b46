import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import { countTextTokens } from '../billing/count-tokens.js';
import { PaidCall, type SettlementRecorder } from '../billing/paid-call.js';
import { priceTextCeiling } from '../billing/pricing.js';
import type { Candidate } from '../catalog/candidate.js';
import { RequestCancellation, type CancelSignal } from '../core/cancel-signal.js';
import type { EmbeddingInput, EmbeddingRequest, EmbeddingResult } from '../core/embedding-request.js';
import type { RouteRequest } from '../core/provider-preferences.js';
import { admitRequest } from '../limits/admit-request.js';
import type { EmbeddingAdapter } from '../providers/retrieval-adapter.js';
import { embeddingAdapterOf } from '../providers/retrieval-adapters.js';
import { createProtocolError } from '../providers/shared/create-protocol-error.js';
import { callContextOf, tryCandidates } from '../routing/try-candidates.js';
import { planEmbeddings } from './plan-embeddings.js';

export interface EmbeddingsOutcome {
  candidate: Candidate;
  result: EmbeddingResult;
  /** What was charged, in nano-USD. */
  cost: bigint;
}

/** Upstream calls of one request in flight at once, when its inputs need several. */
export const embeddingCallsInFlight = 4;

/**
 * Tokens a tokenizer may add around each input (a BOS/EOS pair, a task prefix) beyond one token
 * per byte; part of the reservation's ceiling, never of a charge.
 */
const perInputFraming = 8;

/**
 * Route → admit → reserve the most the inputs can cost → call (split into calls of at most the
 * protocol's `maxInputsPerCall`, a few at a time, the vectors joined in input order) → settle the
 * provider's token count by the text rule (tokens × the prompt price). One paid call for the
 * whole request: a failed part releases the reservation and, when retryable, the request moves
 * on to the next endpoint as a whole. Where the provider reports no count (`estimated`), the
 * gateway counts the inputs itself (o200k BPE; token arrays by their length).
 */
export async function createEmbeddings(
  context: AppContext,
  input: {
    principal: Principal;
    requestId: string;
    route: RouteRequest;
    request: EmbeddingRequest;
    signal: CancelSignal;
    /** Writes the request log row of the charge, committed together with it. */
    record?: SettlementRecorder;
  },
): Promise<EmbeddingsOutcome> {
  const { principal, request } = input;
  const candidates = await planEmbeddings(context, principal, input.route, request);
  await admitRequest(context, principal, candidates[0].model);
  const { candidate, value } = await tryCandidates(context, candidates, input.signal, async (candidate) => {
    const amount = priceTextCeiling(candidate.endpoint.pricing, tokenCeiling(request.inputs, candidate.model.embedding?.maxInputTokens ?? null), 0);
    const paid = await PaidCall.reserve(context.ledger, { accountId: principal.accountId, keyId: principal.keyId, requestId: input.requestId, amount }, { candidate, record: input.record });
    let result: EmbeddingResult;
    try {
      result = await embedInParts(embeddingAdapterOf(candidate.provider.api)!, forCandidate(request, candidate), callContextOf(context, candidate, input.signal));
    } catch (error) {
      await paid.abort(error);
      throw error;
    }
    const cost = await paid.settle({ promptTokens: result.promptTokens, completionTokens: 0, estimated: result.estimated }, 'completed');
    return { result, cost };
  });
  return { candidate, ...value };
}

/**
 * The request as one endpoint is sent it: `dimensions` equal to the model's own size is left out,
 * since that is what the model answers anyway, and models of one size refuse the field outright
 * (OpenAI's text-embedding-ada-002: "This model does not support specifying dimensions").
 */
function forCandidate(request: EmbeddingRequest, candidate: Candidate): EmbeddingRequest {
  if (request.dimensions === undefined || request.dimensions !== candidate.model.embedding?.dimensions) return request;
  const { dimensions: _native, ...rest } = request;
  return rest;
}

/**
 * The most tokens the inputs can count as: a token array its length; a text one token per UTF-8
 * byte (byte-level BPE never makes more) plus framing — at most the model's input limit, past
 * which a provider refuses or truncates.
 */
export function tokenCeiling(inputs: readonly EmbeddingInput[], maxInputTokens: number | null): number {
  let total = 0;
  for (const entry of inputs) {
    const ceiling = typeof entry === 'string' ? Buffer.byteLength(entry) + perInputFraming : entry.length;
    total += maxInputTokens === null ? ceiling : Math.min(ceiling, maxInputTokens);
  }
  return total;
}

/**
 * Sends the inputs in parts of at most `maxInputsPerCall`, `embeddingCallsInFlight` at a time;
 * the first failure stops the parts not yet sent and cancels those in flight.
 */
async function embedInParts(adapter: EmbeddingAdapter, request: EmbeddingRequest, context: ReturnType<typeof callContextOf>): Promise<EmbeddingResult> {
  const size = Math.max(1, adapter.maxInputsPerCall(context.providerModel));
  if (request.inputs.length <= size) return countIfEstimated(await adapter.embed(request, context), request.inputs, context.provider.id);
  const parts: EmbeddingInput[][] = [];
  for (let start = 0; start < request.inputs.length; start += size) parts.push(request.inputs.slice(start, start + size));
  const cancellation = new RequestCancellation();
  const follow = () => cancellation.abort(context.signal.reason);
  if (context.signal.aborted) follow();
  else context.signal.addEventListener('abort', follow, { once: true });
  const results: EmbeddingResult[] = new Array(parts.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const work = async () => {
    while (failure === undefined && next < parts.length) {
      const index = next;
      next += 1;
      try {
        const answer = await adapter.embed({ ...request, inputs: parts[index] }, { ...context, signal: cancellation });
        results[index] = await countIfEstimated(answer, parts[index], context.provider.id);
      } catch (error) {
        if (failure === undefined) {
          failure = { error };
          cancellation.abort(error);
        }
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(embeddingCallsInFlight, parts.length) }, work));
  } finally {
    context.signal.removeEventListener('abort', follow);
  }
  if (failure !== undefined) throw failure.error;
  return {
    vectors: results.flatMap((result) => result.vectors),
    promptTokens: results.reduce((sum, result) => sum + result.promptTokens, 0),
    estimated: results.some((result) => result.estimated),
  };
}

/** Checks the answer holds one vector per input, and counts the inputs where the provider did not. */
async function countIfEstimated(result: EmbeddingResult, inputs: readonly EmbeddingInput[], providerId: string): Promise<EmbeddingResult> {
  if (result.vectors.length !== inputs.length) throw createProtocolError(providerId, `answered ${result.vectors.length} embeddings for ${inputs.length} inputs`);
  if (!result.estimated) return result;
  let tokens = 0;
  for (const entry of inputs) tokens += typeof entry === 'string' ? await countTextTokens(entry) : entry.length;
  return { vectors: result.vectors, promptTokens: Math.max(tokens, result.promptTokens), estimated: true };
}
