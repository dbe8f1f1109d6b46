import type { AppContext } from '../../app-context.js';
import type { Principal } from '../../auth/principal.js';
import { startRequestRecord } from '../../billing/start-request-record.js';
import type { CancelSignal } from '../../core/cancel-signal.js';
import { generateText, type CachedAnswerSource, type TextGenerationOutcome } from '../../generation/generate-text.js';
import type { PassThroughInput } from '../../generation/plan-pass-through.js';
import type { DecodedTextCall } from './text-call.js';
import { cacheKeyOf } from '../../cache/cache-key.js';
import { collectStreamResult } from '../../cache/collect-stream-result.js';
import { planCaching, type CacheHeaders } from '../../cache/plan-caching.js';
import type { ResponseCache } from '../../cache/response-cache.js';
import { chargeCacheHit, servingCandidate } from '../../cache/serve-cached-answer.js';
import { streamResult } from '../../generation/stream-result.js';
import type { RequestRecorder } from '../../billing/start-request-record.js';
import type { Candidate } from '../../catalog/candidate.js';
import type { TextResult } from '../../core/text-result.js';
import { withFields } from '../../core/with-fields.js';

export type StreamedOutcome = Extract<TextGenerationOutcome, { stream: true }>;
export type AnsweredOutcome = Extract<TextGenerationOutcome, { stream: false }>;
/** The response cache's answer: the stored canonical result, never a relayed body. */
type CachedHit = Extract<AnsweredOutcome, { relayed?: false }>;

/**
 * How one transport (HTTP or a Responses WebSocket) reads a text turn and writes its answer. It
 * only reads and writes frames; routing, the charge and the request log row are the runner's.
 * Implemented as classes (methods on the prototype), so a request allocates one object, not a
 * closure per step.
 */
export interface TextTurnTransport<Extra> {
  readonly requestId: string;
  readonly principal: Principal;
  /** The inbound style, as `generateText` takes it. */
  readonly api: 'chat' | 'responses' | 'messages' | 'gemini';
  /** The request log's endpoint, and the body it reads the named model and streaming from. */
  readonly endpoint: string;
  readonly recordBody: Record<string, unknown>;
  /** The body to decode (after `prepare`). */
  readonly body: Record<string, unknown>;
  /** Aborted when the client goes away: the provider call stops and what was generated is charged. */
  readonly signal: CancelSignal;
  /** The client's body and its style's rules, for the native pass-through; absent when it has none. */
  readonly passThrough?: PassThroughInput;
  /** The batch the turn is a line of (its request log row names it); absent for live requests. */
  readonly batchId?: string;
  /** An asynchronous step before decoding (Responses: continuing from a stored response). */
  prepare?(body: Record<string, unknown>): Promise<Record<string, unknown>>;
  decode(body: Record<string, unknown>): { call: DecodedTextCall; extra: Extra };
  /** The outcome is known, before anything of the answer is written (HTTP: its headers). */
  answered(outcome: TextGenerationOutcome): void;
  /** Seconds since the turn arrived: the first token's time for a stream (it resolves with its first part). */
  elapsedSeconds(): number;
  /** Writes a complete answer; what the route handler returns. */
  sendAnswer(outcome: AnsweredOutcome, extra: Extra): unknown;
  /** Writes a stream's frames until it ends or the client leaves. */
  writeStream(outcome: StreamedOutcome, extra: Extra): Promise<void>;
  /** What the turn resolves with once a stream is over (HTTP: the reply). */
  streamEnded(): unknown;
  /**
   * The response cache's request headers and the endpoint its key names; absent on a transport
   * without them (the Responses WebSocket), whose turns are never cached.
   */
  readonly cache?: { headers: CacheHeaders; endpoint: string };
  /** Says whether the cache answered (`hit`, with the entry's age in seconds) or was asked and did not (`miss`). */
  cacheAnswered?(state: 'hit' | 'miss', ageSeconds?: number): void;
}

/**
 * A turn the cache takes part in: its entry's key and the lifetime of a new entry. It is the
 * `CachedAnswerSource` `generateText` asks once the request is routed and admitted; a hit
 * leaves its stored entry's age here.
 */
class CachedTurn implements CachedAnswerSource {
  /** Set when the cache answered: the stored entry's age in seconds. */
  hitAgeSeconds: number | undefined;

  constructor(
    private readonly context: AppContext,
    private readonly turn: TextTurnTransport<unknown>,
    private readonly record: RequestRecorder,
    readonly cache: ResponseCache,
    readonly key: string,
    readonly ttlMs: number,
  ) {}

  async answer(candidates: readonly Candidate[]): Promise<CachedHit | undefined> {
    const { context, turn } = this;
    const stored = await this.cache.read(this.key, turn.principal.accountId);
    const candidate = stored && servingCandidate(candidates, stored);
    if (!stored || candidate === undefined) return undefined;
    const { cost } = await chargeCacheHit(context, stored, candidate, {
      principal: turn.principal,
      requestId: turn.requestId,
      record: this.record,
      priceFactorMillionths: this.cache.config.priceFactorMillionths,
      savings: this.cache,
    });
    this.hitAgeSeconds = Math.max(0, Math.floor((context.clock.now().getTime() - stored.storedAt) / 1000));
    return { stream: false, relayed: false, candidate, result: stored.result, cost, omitted: [] };
  }
}

/**
 * One text turn, whatever carries it: the request log row opened (one per request, also for
 * refusals once a model was named), decode, generate (route, reserve, call, settle through the
 * paid call), then the answer written by the transport. A stream is closed whichever way it
 * ended (settling for what was generated when the client left before reading it), and the turn
 * resolves once its row is queued.
 */
export async function runTextTurn<Extra>(context: AppContext, turn: TextTurnTransport<Extra>): Promise<unknown> {
  const record = startRequestRecord(context, { requestId: turn.requestId, principal: turn.principal, endpoint: turn.endpoint, body: turn.recordBody, batchId: turn.batchId });
  let extra: Extra;
  let outcome: TextGenerationOutcome;
  let cached: CachedTurn | undefined;
  let stream: boolean;
  try {
    const decoded = turn.decode(turn.prepare ? await turn.prepare(turn.body) : turn.body);
    extra = decoded.extra;
    record.identify(decoded.call.request.endUser);
    cached = planCachedTurn(context, turn, record);
    stream = decoded.call.request.stream;
    outcome = await generateText(context, {
      principal: turn.principal,
      call: decoded.call,
      requestId: turn.requestId,
      api: turn.api,
      signal: turn.signal,
      // The paid call asks the recorder for the row and commits it with the charge, in the ledger's next batch.
      record,
      // A cached turn is translated, never relayed: its answer is then the canonical result,
      // which the cache can encode again in any style, as JSON or as a stream.
      passThrough: cached === undefined ? turn.passThrough : undefined,
      // Asked after routing and admission: a request refused live is refused on a would-be hit too.
      cache: cached,
    });
  } catch (error) {
    await record.failed(error);
    throw error;
  }
  if (cached?.hitAgeSeconds !== undefined) return await answerFromCache(turn, record, outcome as CachedHit, cached.hitAgeSeconds, extra, stream);
  if (cached !== undefined) turn.cacheAnswered?.('miss');
  turn.answered(outcome);
  if (!outcome.stream) {
    if (cached !== undefined && !outcome.relayed) storeAnswer(cached, turn, outcome.candidate, outcome.result, outcome.cost);
    await record.admitted;
    return turn.sendAnswer(outcome, extra);
  }
  if (cached !== undefined && !outcome.relayed) {
    const { candidate } = outcome;
    // Stored once the stream has ended with its finish: a stream that failed or was cut is not.
    outcome = withFields(outcome, { parts: collectStreamResult(outcome.parts, (result, cost) => storeAnswer(cached!, turn, candidate, result, cost)) });
  }
  context.metrics.observeTimeToFirstToken(outcome.candidate.model.id, outcome.candidate.provider.id, turn.elapsedSeconds());
  try {
    await turn.writeStream(outcome, extra);
  } finally {
    // Settles and closes the provider stream if the client left before it was read.
    await outcome.close();
  }
  record.ended(outcome.candidate);
  await record.admitted;
  return turn.streamEnded();
}

/** The cache's part in this turn: undefined when the cache is off, the transport has none, or the request does not ask for it. */
function planCachedTurn(context: AppContext, turn: TextTurnTransport<unknown>, record: RequestRecorder): CachedTurn | undefined {
  const cache = context.responseCache;
  if (cache === null || turn.cache === undefined) return undefined;
  const planned = planCaching(cache.config, turn.cache.headers, turn.principal.cache === true);
  if (planned === undefined) return undefined;
  return new CachedTurn(context, turn, record, cache, cacheKeyOf(turn.principal.accountId, turn.cache.endpoint, turn.recordBody), planned.ttlMs);
}

function storeAnswer(cached: CachedTurn, turn: TextTurnTransport<unknown>, candidate: Candidate, result: TextResult, cost: bigint): void {
  cached.cache.store(
    cached.key,
    { accountId: turn.principal.accountId, model: candidate.model.id, provider: candidate.provider.id, providerModel: candidate.endpoint.model, result, cost },
    cached.ttlMs,
  );
}

/**
 * The cache's answer, already charged as its own paid call (`chargeCacheHit`), written by the
 * transport as a provider's answer would be: JSON, or the style's stream events replayed from the
 * stored result in order (`streamResult`), ending with the finish that carries the hit's charge.
 */
async function answerFromCache<Extra>(turn: TextTurnTransport<Extra>, record: RequestRecorder, hit: CachedHit, ageSeconds: number, extra: Extra, stream: boolean): Promise<unknown> {
  if (!stream) {
    turn.answered(hit);
    turn.cacheAnswered?.('hit', ageSeconds);
    await record.admitted;
    return turn.sendAnswer(hit, extra);
  }
  const outcome: StreamedOutcome = { stream: true, relayed: false, candidate: hit.candidate, parts: streamResult(hit.result, hit.cost), close: async () => undefined, omitted: [] };
  turn.answered(outcome);
  turn.cacheAnswered?.('hit', ageSeconds);
  await turn.writeStream(outcome, extra);
  await record.admitted;
  return turn.streamEnded();
}
