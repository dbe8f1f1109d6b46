import type { AppContext } from '../../app-context.js';
import type { Principal } from '../../auth/principal.js';
import { startRequestRecord } from '../../billing/start-request-record.js';
import type { CancelSignal } from '../../core/cancel-signal.js';
import { generateText, type TextGenerationOutcome } from '../../generation/generate-text.js';
import type { PassThroughInput } from '../../generation/plan-pass-through.js';
import type { DecodedTextCall } from './text-call.js';

export type StreamedOutcome = Extract<TextGenerationOutcome, { stream: true }>;
export type AnsweredOutcome = Extract<TextGenerationOutcome, { stream: false }>;

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
  try {
    const decoded = turn.decode(turn.prepare ? await turn.prepare(turn.body) : turn.body);
    extra = decoded.extra;
    record.identify(decoded.call.request.endUser);
    outcome = await generateText(context, {
      principal: turn.principal,
      call: decoded.call,
      requestId: turn.requestId,
      api: turn.api,
      signal: turn.signal,
      // The paid call asks the recorder for the row and commits it with the charge, in the ledger's next batch.
      record,
      passThrough: turn.passThrough,
    });
  } catch (error) {
    await record.failed(error);
    throw error;
  }
  turn.answered(outcome);
  if (!outcome.stream) {
    await record.admitted;
    return turn.sendAnswer(outcome, extra);
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
