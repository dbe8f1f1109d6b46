import { readScriptedCall, ScriptSyntaxError } from './scripted-turns.js';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { FaultSyntaxError, parseDirectives, pickCutFault, type FaultStore } from './faults.js';
import { countPromptTokens } from './count-tokens.js';
import { planReply } from './plan-reply.js';
import {
  requestIdFor,
  SimulatorRequestError,
  type EncodedError,
  type ProtocolAdapter,
  type ProtocolRoute,
  type SimulatedRequest,
} from './protocol-adapter.js';
import { readBody } from './read-body.js';
import { sendJsonBody } from './send-json-body.js';
import type { FaultSpec, ReceivedRequest, SimulatedRecording } from './simulator-types.js';
import type { StatsRecorder } from './stats.js';
import { trackRequest } from './track-request.js';
import { writeEventStream } from './write-event-stream.js';

export interface SimulatorSettings {
  latencyMs: number;
  tokensPerSecond: number;
  chunkTokens: number;
  replyTokens: number;
  apiKey?: string;
}

export interface SimulatorState {
  settings: SimulatorSettings;
  stats: StatsRecorder;
  faults: FaultStore;
  nextSequence(): number;
  isShuttingDown(): boolean;
  /** Keeps what the protocol request carried: the last one per protocol and a bounded list (see `Simulator`). */
  recordReceived(received: ReceivedRequest): void;
  /** The next recorded answer queued for a protocol (see `Simulator.play`), taken off the queue. */
  takeRecording(protocol: ReceivedRequest['protocol']): SimulatedRecording | undefined;
}

/**
 * Answers one provider request: auth, decoding, faults (rules first, prompt directives on top),
 * latency, then the reply as JSON or as a stream. Auth, validation and directive syntax come
 * before fault rules, so that a rejected request never uses up a rule's `times`.
 */
export async function handleProtocolRequest(
  request: IncomingMessage,
  response: ServerResponse,
  target: { adapter: ProtocolAdapter; route: ProtocolRoute; query: URLSearchParams },
  state: SimulatorState,
): Promise<void> {
  const { adapter, route } = target;
  const { settings, stats } = state;
  const scope = trackRequest(response, stats, state.isShuttingDown);
  const sequence = state.nextSequence();
  const headers: OutgoingHttpHeaders = adapter.requestIdHeader ? { [adapter.requestIdHeader]: requestIdFor(sequence) } : {};
  const sendError = (error: EncodedError, extraHeaders: OutgoingHttpHeaders = {}) =>
    sendJsonBody(response, scope, error.status, JSON.stringify(error.body), { headers: { ...headers, ...error.headers, ...extraHeaders } });

  const bodyText = await readBody(request);
  if (bodyText === undefined || scope.closed) return;
  let decoded: SimulatedRequest | undefined;
  let problem = 'Invalid request.';
  try {
    const parsed: unknown = JSON.parse(bodyText);
    state.recordReceived({ protocol: adapter.protocol, method: request.method ?? 'POST', path: request.url ?? '', headers: { ...request.headers }, rawBody: bodyText, body: parsed });
    decoded = route.countTokens ? decodeCountTokensRequest(adapter, parsed, route) : adapter.decodeRequest(parsed, route);
  } catch (error) {
    if (!(error instanceof SimulatorRequestError || error instanceof SyntaxError)) throw error;
    problem = error instanceof SimulatorRequestError ? error.message : 'The request body is not valid JSON.';
  }
  stats.recordRequest(adapter.protocol, decoded?.model ?? route.model ?? '');
  if (settings.apiKey !== undefined) {
    const refusal = adapter.authenticate
      ? await adapter.authenticate({ method: request.method ?? 'POST', path: request.url ?? '', headers: request.headers, body: bodyText }, settings.apiKey, { sequence })
      : adapter.isAuthorized(request.headers, target.query, settings.apiKey)
        ? undefined
        : adapter.encodeAuthError({ sequence });
    if (refusal) {
      sendError(refusal);
      return;
    }
  }
  if (!decoded) {
    sendError(adapter.encodeError(400, { sequence, message: problem }));
    return;
  }
  const recorded = state.takeRecording(adapter.protocol);
  if (recorded) {
    response.writeHead(recorded.status ?? 200, { ...headers, ...recorded.headers, 'content-type': recorded.contentType, 'content-length': Buffer.byteLength(recorded.body) });
    response.end(recorded.body);
    return;
  }

  let fromPrompt: FaultSpec | undefined;
  try {
    fromPrompt = parseDirectives(lastInputText(decoded));
    readScriptedCall(lastInputText(decoded));
  } catch (error) {
    if (!(error instanceof FaultSyntaxError || error instanceof ScriptSyntaxError)) throw error;
    sendError(adapter.encodeError(400, { sequence, message: `simulator directive: ${error.message}` }));
    return;
  }
  const fault = mergeFaults(state.faults.take(adapter.protocol, decoded.model), fromPrompt);
  if (fault && Object.keys(fault).some((key) => key !== 'reply_tokens' && key !== 'extra_prompt_tokens')) stats.recordFault();

  if (!(await scope.sleep(fault?.latency ?? settings.latencyMs))) return;
  if (fault?.status !== undefined) {
    const retryAfterSeconds = fault.retry_after;
    const extraHeaders =
      retryAfterSeconds === undefined ? {} : (adapter.retryAfterHeaders?.(retryAfterSeconds) ?? { 'retry-after': String(retryAfterSeconds) });
    sendError(adapter.encodeError(fault.status, { sequence, retryAfterSeconds }), extraHeaders);
    return;
  }

  if (route.countTokens) {
    // What the same request's `usage.input_tokens` would say: words plus per-message framing.
    const inputTokens = countPromptTokens(decoded.messages) + (fault?.extra_prompt_tokens ?? 0);
    sendJsonBody(response, scope, 200, JSON.stringify({ input_tokens: inputTokens }), { headers });
    return;
  }
  const planned = planReply(decoded, fault?.reply_tokens ?? settings.replyTokens);
  const reply = fault?.extra_prompt_tokens ? { ...planned, promptTokens: planned.promptTokens + fault.extra_prompt_tokens } : planned;
  const context = { sequence, includeUsage: fault?.no_usage !== true, chunkTokens: settings.chunkTokens };
  const cut = pickCutFault(fault);
  if (!decoded.stream) {
    sendJsonBody(response, scope, 200, JSON.stringify(adapter.encodeResponse(decoded, reply, context)), { headers, cut });
    return;
  }
  const stream = adapter.encodeStream(decoded, reply, context);
  const framing = route.framing ?? stream.framing;
  await writeEventStream(response, scope, { ...stream, framing }, { tokensPerSecond: settings.tokensPerSecond, headers, cut });
}

/** A count_tokens body is a Messages body without `max_tokens`, which Anthropic refuses there. */
function decodeCountTokensRequest(adapter: ProtocolAdapter, parsed: unknown, route: ProtocolRoute): SimulatedRequest {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new SimulatorRequestError('The request body must be an object.');
  const body = parsed as Record<string, unknown>;
  for (const field of ['max_tokens', 'stream', 'temperature', 'top_p', 'top_k', 'stop_sequences', 'metadata']) {
    if (field in body) throw new SimulatorRequestError(`${field}: Extra inputs are not permitted`);
  }
  return adapter.decodeRequest({ ...body, max_tokens: 1 }, route);
}

function mergeFaults(fromRule: FaultSpec | undefined, fromPrompt: FaultSpec | undefined): FaultSpec | undefined {
  return fromRule && fromPrompt ? { ...fromRule, ...fromPrompt } : (fromPrompt ?? fromRule);
}

/** Directives are read from the newest user turn: a user message or a tool result. */
function lastInputText(request: SimulatedRequest): string {
  for (let index = request.messages.length - 1; index >= 0; index--) {
    const message = request.messages[index];
    if (message.role === 'user' || message.role === 'tool') return message.text;
  }
  return '';
}
