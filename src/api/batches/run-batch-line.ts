import type { AppContext } from '../../app-context.js';
import type { Principal } from '../../auth/principal.js';
import { startRequestRecord } from '../../billing/start-request-record.js';
import { createEmbeddings } from '../../embeddings/create-embeddings.js';
import { decodeEmbeddingRequest } from '../embeddings/decode-embedding-request.js';
import { encodeEmbeddingsResponse } from '../embeddings/encode-embeddings-response.js';
import type { LineOutcome, LineRun } from '../../batches/line-executor.js';
import type { TextGenerationOutcome } from '../../generation/generate-text.js';
import type { PassThroughInput } from '../../generation/plan-pass-through.js';
import { renderError } from '../../errors/render-error.js';
import { toGatewayError } from '../../errors/to-gateway-error.js';
import type { GatewayError } from '../../errors/gateway-error.js';
import { withSettledUsage } from '../shared/relay-frames.js';
import { styleOf } from './line-codec.js';
import type { TextStyle } from '../shared/handle-text-request.js';
import { runTextTurn, type AnsweredOutcome, type StreamedOutcome, type TextTurnTransport } from '../shared/run-text-turn.js';
import type { DecodedTextCall } from '../shared/text-call.js';

/**
 * Runs one batch line through the text turn of its live endpoint (`runTextTurn`): the same
 * decoding, routing, reservation, provider call, settlement and request log row — tied to the
 * batch — as a request to `/v1/chat/completions`, `/v1/responses` or `/v1/messages`, so a line
 * costs exactly what the live request costs. The answer is the body the live endpoint would send;
 * a failure is its status and error envelope. A line whose run is stopped (the engine shutting
 * down, the task's lease running out) before an answer is `stopped`: nothing was charged, and it
 * runs again.
 */
export async function runBatchLine(context: AppContext, run: LineRun): Promise<LineOutcome> {
  if (run.batch.endpoint === '/v1/embeddings') return runEmbeddingsLine(context, run);
  const style = styleOf(context, run.batch.endpoint, run.principal);
  const turn = new BatchLineTurn(context, style, run);
  try {
    const body = await runTextTurn(context, turn);
    return { kind: 'answered', statusCode: 200, body };
  } catch (error) {
    if (run.signal.aborted) return { kind: 'stopped' };
    const gatewayError = toGatewayError(error);
    const body = renderError(gatewayError, run.requestId, style.api === 'messages' ? 'anthropic' : 'openai');
    return failedLine(gatewayError, body);
  }
}

/** An embeddings line, as `POST /v1/embeddings` runs it (api/embeddings/routes.ts): one paid call, its row tied to the batch. */
async function runEmbeddingsLine(context: AppContext, run: LineRun): Promise<LineOutcome> {
  const body = run.line.body;
  const record = startRequestRecord(context, { requestId: run.requestId, principal: run.principal, endpoint: '/embeddings', body, batchId: run.batch.id });
  try {
    const decoded = decodeEmbeddingRequest(body);
    record.identify(decoded.request.user);
    const outcome = await createEmbeddings(context, { principal: run.principal, requestId: run.requestId, route: decoded.route, request: decoded.request, signal: run.signal, record });
    await record.admitted;
    return { kind: 'answered', statusCode: 200, body: encodeEmbeddingsResponse(outcome.result, outcome.candidate.model.id, decoded.encoding, outcome.cost) };
  } catch (error) {
    await record.failed(error);
    if (run.signal.aborted) return { kind: 'stopped' };
    const gatewayError = toGatewayError(error);
    return failedLine(gatewayError, renderError(gatewayError, run.requestId, 'openai'));
  }
}

/**
 * A line that failed as the live request would have. A provider's rate limit (`limit_type:
 * upstream`: every endpoint tried answered 429) is marked, with its `Retry-After`, so the batch
 * runs the line again later instead of failing it (`batches/run-batch.ts`).
 */
function failedLine(error: GatewayError, body: unknown): LineOutcome {
  const outcome: LineOutcome = { kind: 'failed', statusCode: error.status, body, code: error.code, message: error.message };
  if (error.code !== 'rate_limited' || error.metadata.limit_type !== 'upstream') return outcome;
  const retryAfter = Number(error.headers['retry-after']);
  return { ...outcome, rateLimited: Number.isFinite(retryAfter) && retryAfter >= 0 ? { retryAfterSeconds: retryAfter } : {} };
}

/** A batch line as a text turn: the line's body in, the answer's JSON body out; never a stream. */
class BatchLineTurn implements TextTurnTransport<unknown> {
  readonly requestId: string;
  readonly principal: Principal;
  readonly api: TextStyle<unknown>['api'];
  readonly endpoint: string;
  readonly recordBody: Record<string, unknown>;
  readonly body: Record<string, unknown>;
  readonly signal: AbortSignal;
  readonly passThrough: PassThroughInput | undefined;
  readonly batchId: string;
  readonly prepare: ((body: Record<string, unknown>) => Promise<Record<string, unknown>>) | undefined;
  private readonly startedAt = performance.now();

  constructor(
    private readonly context: AppContext,
    private readonly style: TextStyle<unknown>,
    run: LineRun,
  ) {
    // Validation refused `stream: true`; a line's answer is one JSON body.
    const body = { ...run.line.body, stream: false };
    this.requestId = run.requestId;
    this.principal = run.principal;
    this.api = style.api;
    this.endpoint = run.batch.endpoint.slice('/v1'.length);
    this.recordBody = body;
    this.body = body;
    this.signal = run.signal;
    this.passThrough = style.relay && context.config.server.passThrough !== false ? { body, rules: style.relay.rules } : undefined;
    this.batchId = run.batch.id;
    this.prepare = style.prepare && ((input) => style.prepare!(input));
  }

  decode(body: Record<string, unknown>): { call: DecodedTextCall; extra: unknown } {
    // The styles read only the body and headers; a line has no headers (Messages' `anthropic-beta` is a header).
    return this.style.decode(body, {}, undefined as never);
  }

  answered(_outcome: TextGenerationOutcome): void {}

  elapsedSeconds(): number {
    return (performance.now() - this.startedAt) / 1000;
  }

  sendAnswer(outcome: AnsweredOutcome, extra: unknown): unknown {
    if (outcome.relayed) return withSettledUsage(outcome.body, this.style.relay!, outcome.usage, outcome.cost);
    const meta = { id: this.requestId, model: outcome.candidate.model.id, created: Math.floor(this.context.clock.now().getTime() / 1000) };
    return this.style.encodeResponse(outcome.result, meta, outcome.cost, extra);
  }

  writeStream(_outcome: StreamedOutcome, _extra: unknown): Promise<void> {
    return Promise.reject(new Error('a batch line never streams'));
  }

  streamEnded(): unknown {
    return undefined;
  }
}
