import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { PlannedReply } from './plan-reply.js';
import type { SimulatorProtocol } from './simulator-types.js';
import type { SimulatedRequest } from './simulated-request.js';

export type { SimulatedMessage, SimulatedRequest, SimulatedTool, SimulatedToolChoice } from './simulated-request.js';

/** A stream event before framing; `tokens` is what the event costs in pacing time. */
export interface StreamEvent {
  /** The SSE event name; in AWS event stream framing, the `:event-type` (or `:exception-type`). */
  event?: string;
  data: string;
  tokens: number;
  /** AWS event stream framing only: an `exception` message ends the stream with an error (default `event`). */
  messageType?: 'event' | 'exception';
}

/** `aws-eventstream`: AWS's binary `application/vnd.amazon.eventstream` frames (Bedrock), one per event. */
export type StreamFraming = 'sse' | 'sse-crlf' | 'json-array' | 'aws-eventstream';

export interface EncodedStream {
  framing: StreamFraming;
  events: StreamEvent[];
  /** The protocol's in-stream error event, for the `error_after` fault. */
  errorEvent: StreamEvent;
}

export interface EncodedError {
  status: number;
  body: unknown;
  /** Headers the vendor sends with its error (AWS: the error type in `x-amzn-ErrorType`). */
  headers?: OutgoingHttpHeaders;
}

/** What a reply encoder needs beyond the request and the plan. */
export interface ResponseContext {
  /** A number unique within this simulator, used to build response and tool call ids. */
  sequence: number;
  includeUsage: boolean;
  chunkTokens: number;
}

export interface ErrorDetails {
  sequence: number;
  /** Replaces the vendor's usual message for the status. */
  message?: string;
  retryAfterSeconds?: number;
}

export interface ProtocolAdapter {
  protocol: SimulatorProtocol;
  /** Response header that carries the request id, when the vendor sends one. */
  requestIdHeader?: string;
  isAuthorized(headers: IncomingHttpHeaders, query: URLSearchParams, apiKey: string): boolean;
  /**
   * Replaces `isAuthorized` and `encodeAuthError` when the check needs the whole request (AWS
   * SigV4 signs the method, path, headers and body): undefined when authentic, else the refusal.
   */
  authenticate?(request: AuthenticatedRequest, apiKey: string, details: ErrorDetails): Promise<EncodedError | undefined>;
  /** The vendor's answer to a missing or wrong key. */
  encodeAuthError(details: ErrorDetails): EncodedError;
  encodeError(status: number, details: ErrorDetails): EncodedError;
  /** The headers that say when to retry (default `retry-after: <seconds>`). */
  retryAfterHeaders?(seconds: number): Record<string, string>;
  /** Throws `SimulatorRequestError` when the body is not a request of this protocol. */
  decodeRequest(body: unknown, route: ProtocolRoute): SimulatedRequest;
  encodeResponse(request: SimulatedRequest, reply: PlannedReply, context: ResponseContext): unknown;
  encodeStream(request: SimulatedRequest, reply: PlannedReply, context: ResponseContext): EncodedStream;
}

/** A request as received, for `ProtocolAdapter.authenticate`. */
export interface AuthenticatedRequest {
  method: string;
  /** Path and query as received (still percent-encoded). */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the URL says about the request (Gemini puts the model and streaming there). */
export interface ProtocolRoute {
  model?: string;
  stream?: boolean;
  framing?: StreamFraming;
  /** Anthropic's `POST /v1/messages/count_tokens`: the request's prompt tokens, no reply. */
  countTokens?: boolean;
}

export function requestIdFor(sequence: number): string {
  return `req_sim${sequence}`;
}

/** A status's row in a vendor's error table; an unlisted status takes the 500 row or the 400 row. */
export function pickStatusRow<Row>(table: Readonly<Record<number, Row>>, status: number): Row {
  return table[status] ?? (status >= 500 ? table[500] : table[400]);
}

/** A request the simulator rejects with the protocol's 400 error. */
export class SimulatorRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SimulatorRequestError';
  }
}

export function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function optionalNumber(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new SimulatorRequestError(`${name} must be a non-negative integer`);
  }
  return value;
}

export function requireString(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw new SimulatorRequestError(`${name} is required`);
  return value;
}

/** A stop parameter given as one string or a list of strings. */
export function readStopSequences(value: unknown): string[] {
  if (typeof value === 'string') return value === '' ? [] : [value];
  return asArray(value).filter((item): item is string => typeof item === 'string' && item !== '');
}

/** Text of JSON-ish content: strings as they are, anything else as its JSON text. */
export function stringifyContent(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** Joins reply pieces into stream chunks of `chunkTokens` tokens each. */
export function groupPieces(pieces: readonly string[], context: { chunkTokens: number }): { text: string; tokens: number }[] {
  const groups: { text: string; tokens: number }[] = [];
  const size = Math.max(1, context.chunkTokens);
  for (let start = 0; start < pieces.length; start += size) {
    const slice = pieces.slice(start, start + size);
    groups.push({ text: slice.join(''), tokens: slice.length });
  }
  return groups;
}

/**
 * Serializes `value` once with placeholders in `slots`, and returns a function that fills them.
 * Stream events of one response differ only in a field or two, so each event then costs one
 * small JSON.stringify instead of a whole object's: this keeps long streams cheap enough that
 * the simulator is never what a benchmark measures. Every byte still comes from JSON.stringify.
 */
export function createJsonTemplate(value: Record<string, unknown>, slots: readonly string[]): (...slotValues: unknown[]) => string {
  const markers = slots.map((slot) => `\u0000${slot}\u0000`);
  const shape: Record<string, unknown> = { ...value };
  slots.forEach((slot, index) => (shape[slot] = markers[index]));
  let rest = JSON.stringify(shape);
  const pieces: string[] = [];
  for (const marker of markers) {
    const [before, after] = rest.split(JSON.stringify(marker));
    pieces.push(before);
    rest = after;
  }
  pieces.push(rest);
  return (...slotValues) => {
    let text = pieces[0];
    for (let index = 0; index < slots.length; index++) text += JSON.stringify(slotValues[index]) + pieces[index + 1];
    return text;
  };
}
