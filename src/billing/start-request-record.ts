import { performance } from 'node:perf_hooks';
import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import { readIdTime } from '../core/id-time.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { RequestLogErrorCode } from '../errors/request-log-codes.js';
import { toGatewayError } from '../errors/to-gateway-error.js';
import type { StreamSettlement } from '../generation/meter-stream.js';
import { UpstreamError } from '../errors/upstream-error.js';
import type { Candidate } from '../routing/candidate.js';
import type { RequestRecord, RequestStatus } from './request-record.js';

export interface RequestRecorder {
  /** The settlement of a request a provider served (completed, failed mid-stream, aborted). */
  settled(candidate: Candidate, settlement: StreamSettlement): void;
  /**
   * The row of that settlement, for the ledger to commit together with the charge (instead of
   * queuing it apart, as `settled` does). Undefined when the request already has its row.
   */
  settlementRow(candidate: Candidate, settlement: StreamSettlement): RequestRecord | undefined;
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
  context: Pick<AppContext, 'requestLog' | 'clock' | 'metrics'>,
  input: { requestId: string; principal: Principal; endpoint: string; body: Record<string, unknown> },
): RequestRecorder {
  const startedAt = performance.now();
  const requested = typeof input.body.model === 'string' && input.body.model !== '' ? input.body.model.slice(0, 200) : undefined;
  let admitted = resolved;
  let done = false;
  let endUser: string | null = null;

  const build = (fields: Pick<RequestRecord, 'model' | 'provider' | 'status' | 'errorCode'> & Partial<RequestRecord>): RequestRecord => {
    done = true;
    const record: RequestRecord = {
      id: input.requestId,
      accountId: input.principal.accountId,
      keyId: input.principal.keyId,
      endpoint: input.endpoint,
      streamed: input.body.stream === true,
      latencyMs: Math.round(performance.now() - startedAt),
      promptTokens: 0,
      completionTokens: 0,
      cachedTokens: 0,
      reasoningTokens: 0,
      cost: 0n,
      estimated: false,
      createdAt: new Date(readIdTime(input.requestId) ?? context.clock.now().getTime()).toISOString(),
      endUser,
      ...fields,
    };
    context.metrics.observeRequestRecord(record);
    return record;
  };
  const write = (fields: Pick<RequestRecord, 'model' | 'provider' | 'status' | 'errorCode'> & Partial<RequestRecord>): Promise<void> => {
    admitted = context.requestLog.record(build(fields));
    return admitted;
  };
  const settledFields = (candidate: Candidate, settlement: StreamSettlement) => {
    const { usage } = settlement;
    return {
      model: candidate.model.id,
      provider: candidate.provider.id,
      status: settlement.status,
      errorCode: settlement.errorCode ?? null,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      cachedTokens: usage.cachedPromptTokens ?? 0,
      reasoningTokens: usage.reasoningTokens ?? 0,
      cost: settlement.cost,
      estimated: usage.estimated === true,
      omitted: settlement.omitted && settlement.omitted.length > 0 ? [...settlement.omitted] : null,
      webSearchRequests: usage.webSearchRequests ?? null,
      toolCost: usage.toolCost ?? null,
    };
  };

  return {
    settled(candidate, settlement) {
      if (done) return;
      void write(settledFields(candidate, settlement));
    },
    settlementRow(candidate, settlement) {
      return done ? undefined : build(settledFields(candidate, settlement));
    },
    failed(error) {
      if (done || requested === undefined) return admitted;
      return write({ model: requested, ...classifyFailure(error) });
    },
    ended(candidate) {
      if (!done) void write({ model: candidate.model.id, provider: candidate.provider.id, status: 'aborted', errorCode: 'client_closed' });
    },
    identify(id) {
      // Bounded, so one client cannot grow the log with a huge id; the log makes it valid text.
      endUser = id === undefined || id === '' ? null : id.slice(0, END_USER_MAX_CHARS);
    },
    get admitted() {
      return admitted;
    },
  };
}

/**
 * `refused` when no provider was called, with the code the client got (a database that cannot
 * answer: 503 `service_unavailable`, as the error handler answers it); `failed` when providers
 * were called and all failed, or for a fault of ours (`internal_error`).
 */
function classifyFailure(error: unknown): { status: RequestStatus; errorCode: RequestLogErrorCode; provider: string | null } {
  const upstream = error instanceof UpstreamError ? error : error instanceof GatewayError && error.cause instanceof UpstreamError ? error.cause : undefined;
  if (upstream?.code === 'aborted') return { status: 'aborted', errorCode: 'client_closed', provider: upstream.provider === 'client' ? null : upstream.provider };
  if (error instanceof GatewayError) return { status: upstream ? 'failed' : 'refused', errorCode: error.code, provider: upstream?.provider ?? null };
  const answered = toGatewayError(error);
  // The code the client got: a raw provider failure is answered by the one mapping (to-client-error.ts).
  if (upstream) return { status: 'failed', errorCode: answered.code, provider: upstream.provider };
  return { status: answered.code === 'internal_error' ? 'failed' : 'refused', errorCode: answered.code, provider: null };
}
