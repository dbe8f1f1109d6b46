import type { AppContext } from '../../../app-context.js';
import type { Principal } from '../../../auth/principal.js';
import type { TextGenerationOutcome } from '../../../generation/generate-text.js';
import { runTextTurn, type StreamedOutcome, type TextTurnTransport } from '../../shared/run-text-turn.js';
import type { DecodedTextCall, ResponseMeta } from '../../shared/text-call.js';
import { invalidRequest } from '../../../errors/gateway-error.js';
import type { StreamError, StreamPart } from '../../../core/stream-part.js';
import type { StreamEvent } from '../format-sse-event.js';
import { encodeResponsesEvents } from '../encode-stream.js';
import type { PriorTurnLookup } from '../continue-previous-response.js';
import type { ResponsesEcho } from '../responses-echo.js';
import type { ResponseObject } from '../responses-wire.js';
import { createResponsesStyle, type ResponsesStyle } from '../responses-style.js';
import { admitWarmUp } from './admit-warm-up.js';

export interface SocketResponseInput {
  /** The response's id and its request log row's; the `request_id` of an `error` message too. */
  requestId: string;
  principal: Principal;
  /** The `response.create` message without its `type`. */
  body: Record<string, unknown>;
  /** The message's size in bytes, which a stored warm-up keeps. */
  bytes: number;
  lookup: PriorTurnLookup;
  onFinished: (response: ResponseObject, inputItems: unknown[]) => void;
  /** Sends one event; a promise when the socket's buffer is full and the next event should wait. */
  send: (event: StreamEvent) => Promise<void> | undefined;
  /** Aborted when the socket closes: the provider call stops and what was generated is charged. */
  signal: AbortSignal;
  /**
   * True once the server's shutdown grace period is over: the signal is aborted too, and the
   * response, instead of just stopping, ends in-band with `response.failed` saying why.
   */
  cutByShutdown: () => boolean;
}

/**
 * One `response.create` on a Responses WebSocket: the same decode, routing, reservation,
 * charge, request log row and stored response as `POST /v1/responses` with `stream: true`, and
 * the same events, each sent as one message. An error before the first event is thrown for the
 * connection to send as an `error` message; after it, the stream ends in-band (`response.failed`).
 */
export async function runSocketResponse(context: AppContext, input: SocketResponseInput): Promise<void> {
  const { generate, ...request } = input.body;
  if (generate !== undefined && typeof generate !== 'boolean') throw invalidRequest("'generate' must be a boolean", 'generate');
  if (generate === false) return warmUp(context, input, request);
  await runTextTurn(context, new SocketTextTurn(context, input, { ...request, stream: true }));
}

/** The WebSocket transport of a text turn: the message's body in, each Responses event out as one message. */
class SocketTextTurn implements TextTurnTransport<ResponsesEcho> {
  readonly api = 'responses';
  readonly endpoint = '/responses';
  readonly requestId: string;
  readonly principal: Principal;
  readonly signal: AbortSignal;
  private readonly startedAt = performance.now();
  private readonly style: ResponsesStyle;

  constructor(
    private readonly context: AppContext,
    private readonly input: SocketResponseInput,
    /** The message's body, streamed: also what the request log reads the model from. */
    readonly body: Record<string, unknown>,
  ) {
    this.requestId = input.requestId;
    this.principal = input.principal;
    this.signal = input.signal;
    this.style = createResponsesStyle(context, input.principal, { lookup: input.lookup, onFinished: input.onFinished });
  }

  get recordBody(): Record<string, unknown> {
    return this.body;
  }

  prepare(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.style.prepare(body);
  }

  decode(body: Record<string, unknown>): { call: DecodedTextCall; extra: ResponsesEcho } {
    return this.style.decode(body);
  }

  answered(outcome: TextGenerationOutcome): void {
    if (!outcome.stream || outcome.relayed) throw new Error('a streamed Responses request came back without its canonical stream');
  }

  elapsedSeconds(): number {
    return (performance.now() - this.startedAt) / 1000;
  }

  sendAnswer(): never {
    throw new Error('a streamed Responses request came back without its canonical stream');
  }

  async writeStream(outcome: StreamedOutcome, echo: ResponsesEcho): Promise<void> {
    const { input, context } = this;
    if (outcome.relayed) throw new Error('a streamed Responses request came back without its canonical stream');
    const meta: ResponseMeta = { id: this.requestId, model: outcome.candidate.model.id, created: Math.floor(context.clock.now().getTime() / 1000) };
    for await (const event of encodeResponsesEvents(endOnShutdown(outcome.parts, input.cutByShutdown), meta, echo, { clock: context.clock, onTerminal: this.style.onTerminal })) {
      if (input.signal.aborted && !input.cutByShutdown()) break;
      const written = input.send(event);
      if (written) await written;
    }
  }

  streamEnded(): undefined {
    return undefined;
  }
}

/**
 * `response.create` with `generate: false` (OpenAI's WebSocket warm-up, which Codex sends when a
 * session starts): the request is checked and its state kept — a completed Response with no
 * output that a later turn continues from with `previous_response_id` — but no model runs, so
 * nothing is reserved, charged or written to the request log. What it stores is bounded and
 * needs funds (`admitWarmUp`), and logged when stored (`storeResponse`).
 */
async function warmUp(context: AppContext, input: SocketResponseInput, request: Record<string, unknown>): Promise<void> {
  const style = createResponsesStyle(context, input.principal, { lookup: input.lookup, onFinished: input.onFinished, free: true });
  const { extra: echo } = style.decode(await style.prepare({ ...request, stream: true }));
  await admitWarmUp(context, input.principal, echo.store, input.bytes);
  const meta: ResponseMeta = { id: input.requestId, model: typeof request.model === 'string' ? request.model : '', created: Math.floor(context.clock.now().getTime() / 1000) };
  for await (const event of encodeResponsesEvents(finishedEmpty(), meta, echo, { clock: context.clock, onTerminal: style.onTerminal })) {
    const written = input.send(event);
    if (written) await written;
  }
}

/**
 * The parts as they come; when the shutdown cut them (the provider call aborted, so they end
 * without a `finish`), an `error` part that tells the client why, rather than a generic cut-off.
 */
async function* endOnShutdown(parts: AsyncIterable<StreamPart>, cutByShutdown: () => boolean): AsyncGenerator<StreamPart> {
  for await (const part of parts) {
    yield part;
    if (part.type === 'finish' || part.type === 'error') return;
  }
  if (cutByShutdown()) yield { type: 'error', error: shutdownCut };
}

const shutdownCut: StreamError = {
  code: 'service_unavailable',
  status: 503,
  message: 'The server shut down before this response finished (its grace period for responses in flight ran out); what was generated is charged. Reconnect and send the turn again.',
};

async function* finishedEmpty(): AsyncGenerator<StreamPart> {
  yield { type: 'finish', finishReason: 'stop', usage: { promptTokens: 0, completionTokens: 0 }, cost: 0n };
}
