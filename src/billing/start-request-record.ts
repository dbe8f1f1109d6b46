import { performance } from 'node:perf_hooks';
import type { Principal } from '../auth/principal.js';
import type { Clock } from '../core/clock.js';
import { readIdTime } from '../core/id-time.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { RequestLogErrorCode } from '../errors/request-log-codes.js';
import { toGatewayError } from '../errors/to-gateway-error.js';
import { UpstreamError } from '../errors/upstream-error.js';
import type { Candidate } from '../catalog/candidate.js';
import type { SettlementRecorder } from './paid-call.js';
import type { RequestLog } from './request-log.js';
import type { RequestRecord, RequestStatus } from './request-record.js';
import type { Settlement } from './settlement.js';

/** The services a request's record uses: its own list, since the app context holds the task engine, which imports this file. */
export interface RequestRecordDependencies {
  requestLog: RequestLog;
  clock: Clock;
  /** Only this method of the metrics: billing is below them, so it names what it calls rather than importing their type. */
  metrics: { observeRequestRecord(record: RequestRecord): void };
}

export interface RequestRecorder extends SettlementRecorder {
  /** The settlement of a request a provider served (completed, failed mid-stream, aborted). */
  settled(candidate: Candidate, settlement: Settlement): void;
  /**
   * The row of that settlement, for the ledger to commit together with the charge (instead of
   * queuing it apart, as `settled` does). Undefined when the request already has its row.
   */
  settlementRow(candidate: Candidate, settlement: Settlement): RequestRecord | undefined;
  /** A request that ended in an error before a settlement; logged only when it named a model. */
  failed(error: unknown): Promise<void>;
  /** A stream that ended without a settlement (the client left before the first frame). */
  ended(candidate: Candidate): void;
  /** The end-user id the decoded request carries (see `TextRequest.endUser`), for the row. */
  identify(endUser: string | undefined): void;
  /** Resolves once the row is queued: a full request log makes the request wait here. */
  readonly admitted: Promise<void>;
}

const resolved: Promise<void> = Promise.resolve();

/** Longest end-user id kept on a row (Anthropic's own limit for `metadata.user_id`). */
export const END_USER_MAX_CHARS = 256;

/**
 * Follows one generation request to its request log row: exactly one row per request, whichever
 * way it ends. The row's time is the request id's (ids are time-ordered), so that date filters on
 * the log are id ranges.
 */
export function startRequestRecord(
  context: RequestRecordDependencies,
  input: { requestId: string; principal: Principal; endpoint: string; body: Record<string, unknown>; /** The batch the request is a line of. */ batchId?: string },
): RequestRecorder {
  return new RequestRecording(context, input.requestId, input.principal, input.endpoint, input.body, input.batchId ?? null);
}

type RowFields = Pick<RequestRecord, 'model' | 'provider' | 'status' | 'errorCode' | 'errorMessage'>;

/** Longest client error message kept on a row: enough for every message of ours, bounded for quoted input. */
export const ERROR_MESSAGE_MAX_CHARS = 500;

/**
 * One object per request, its methods on the prototype (a recorder of closures was eight
 * functions per request), and every row of one shape: a settlement's fields written out in full,
 * not spread over defaults.
 */
class RequestRecording implements RequestRecorder {
  private readonly startedAt = performance.now();
  private readonly requested: string | undefined;
  private readonly streamed: boolean;
  private pending: Promise<void> = resolved;
  private done = false;
  private endUser: string | null = null;

  constructor(
    private readonly context: RequestRecordDependencies,
    private readonly requestId: string,
    private readonly principal: Principal,
    private readonly endpoint: string,
    body: Record<string, unknown>,
    private readonly batchId: string | null,
  ) {
    const model = body.model;
    this.requested = typeof model === 'string' && model !== '' ? model.slice(0, 200) : undefined;
    this.streamed = body.stream === true;
  }

  get admitted(): Promise<void> {
    return this.pending;
  }

  settled(candidate: Candidate, settlement: Settlement): void {
    if (!this.done) void this.write(this.settledRow(candidate, settlement));
  }

  settlementRow(candidate: Candidate, settlement: Settlement): RequestRecord | undefined {
    return this.done ? undefined : this.settledRow(candidate, settlement);
  }

  failed(error: unknown): Promise<void> {
    if (this.done || this.requested === undefined) return this.pending;
    const { status, errorCode, errorMessage, provider } = classifyFailure(error);
    return this.write(this.row({ model: this.requested, provider, status, errorCode, errorMessage: errorMessage?.slice(0, ERROR_MESSAGE_MAX_CHARS) ?? null }));
  }

  ended(candidate: Candidate): void {
    if (!this.done) void this.write(this.row({ model: candidate.model.id, provider: candidate.provider.id, status: 'aborted', errorCode: 'client_closed', errorMessage: null }));
  }

  identify(id: string | undefined): void {
    // Bounded, so one client cannot grow the log with a huge id; the log makes it valid text.
    this.endUser = id === undefined || id === '' ? null : id.slice(0, END_USER_MAX_CHARS);
  }

  private write(record: RequestRecord): Promise<void> {
    this.pending = this.context.requestLog.record(record);
    return this.pending;
  }

  /** A row without usage (a refusal, a failure, a client gone before the first frame). */
  private row(fields: RowFields): RequestRecord {
    return this.finish({
      id: this.requestId,
      accountId: this.principal.accountId,
      keyId: this.principal.keyId,
      endpoint: this.endpoint,
      streamed: this.streamed,
      latencyMs: this.latency(),
      promptTokens: 0,
      completionTokens: 0,
      cachedTokens: 0,
      reasoningTokens: 0,
      cost: 0n,
      estimated: false,
      createdAt: this.createdAt(),
      endUser: this.endUser,
      model: fields.model,
      provider: fields.provider,
      status: fields.status,
      errorCode: fields.errorCode,
      errorMessage: fields.errorMessage,
      omitted: null,
      webSearchRequests: null,
      toolCost: null,
      batchId: this.batchId,
      cacheHit: false,
    });
  }

  private settledRow(candidate: Candidate, settlement: Settlement): RequestRecord {
    const { usage } = settlement;
    return this.finish({
      id: this.requestId,
      accountId: this.principal.accountId,
      keyId: this.principal.keyId,
      endpoint: this.endpoint,
      streamed: this.streamed,
      latencyMs: this.latency(),
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      cachedTokens: usage.cachedPromptTokens ?? 0,
      reasoningTokens: usage.reasoningTokens ?? 0,
      cost: settlement.cost,
      estimated: usage.estimated === true,
      createdAt: this.createdAt(),
      endUser: this.endUser,
      model: candidate.model.id,
      provider: candidate.provider.id,
      status: settlement.status,
      errorCode: settlement.errorCode ?? null,
      errorMessage: null,
      omitted: settlement.omitted && settlement.omitted.length > 0 ? [...settlement.omitted] : null,
      webSearchRequests: usage.webSearchRequests ?? null,
      toolCost: usage.toolCost ?? null,
      batchId: this.batchId,
      cacheHit: settlement.cacheHit === true,
    });
  }

  private finish(record: RequestRecord): RequestRecord {
    this.done = true;
    this.context.metrics.observeRequestRecord(record);
    return record;
  }

  private latency(): number {
    return Math.round(performance.now() - this.startedAt);
  }

  private createdAt(): string {
    return isoTime(readIdTime(this.requestId) ?? this.context.clock.now().getTime());
  }
}

/** The last time formatted: requests of one millisecond share the string. */
let lastIsoMillis = Number.NaN;
let lastIso = '';

function isoTime(milliseconds: number): string {
  if (milliseconds !== lastIsoMillis) {
    lastIso = new Date(milliseconds).toISOString();
    lastIsoMillis = milliseconds;
  }
  return lastIso;
}

/**
 * `refused` when no provider was called, with the code and message the client got (a database
 * that cannot answer: 503 `service_unavailable`, as the error handler answers it); `failed` when
 * providers were called and all failed, or for a fault of ours (`internal_error`).
 */
function classifyFailure(error: unknown): { status: RequestStatus; errorCode: RequestLogErrorCode; errorMessage: string | null; provider: string | null } {
  const upstream = error instanceof UpstreamError ? error : error instanceof GatewayError && error.cause instanceof UpstreamError ? error.cause : undefined;
  if (upstream?.code === 'aborted') return { status: 'aborted', errorCode: 'client_closed', errorMessage: null, provider: upstream.provider === 'client' ? null : upstream.provider };
  if (error instanceof GatewayError) return { status: upstream ? 'failed' : 'refused', errorCode: error.code, errorMessage: error.message, provider: upstream?.provider ?? null };
  const answered = toGatewayError(error);
  // The code the client got: a raw provider failure is answered by the one mapping (to-client-error.ts).
  if (upstream) return { status: 'failed', errorCode: answered.code, errorMessage: answered.message, provider: upstream.provider };
  return { status: answered.code === 'internal_error' ? 'failed' : 'refused', errorCode: answered.code, errorMessage: answered.message, provider: null };
}
