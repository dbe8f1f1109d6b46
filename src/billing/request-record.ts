import type { RequestLogErrorCode } from '../errors/request-log-codes.js';

/**
 * The request log's row as the money path writes it: the record a settlement commits with, whose
 * cost is what the ledger charged. `store/` reads and writes it; `billing/` decides what it says.
 */
/** `refused`: the gateway said no before any provider was called (402, 400, 503 …). */
export type RequestStatus = 'completed' | 'failed' | 'aborted' | 'refused';

/** One row of the request log. */
export interface RequestRecord {
  id: string;
  accountId: string;
  keyId: string | null;
  model: string;
  provider: string | null;
  /** The API path that received it, e.g. `/chat/completions`. */
  endpoint: string;
  streamed: boolean;
  status: RequestStatus;
  errorCode: RequestLogErrorCode | null;
  /**
   * The message the client got with `errorCode` (it tells a key limit from an empty balance, a
   * misspelt model from an unconfigured one); null or absent when there was none.
   */
  errorMessage?: string | null;
  latencyMs: number | null;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  /** nano-USD actually charged. */
  cost: bigint;
  estimated: boolean;
  createdAt: string;
  /**
   * The client's end-user id (`metadata.user_id`, `user`, `safety_identifier`), at most 256
   * characters; absent or null when it sent none (rows not made from a text request).
   */
  endUser?: string | null;
  /**
   * What the request preferred and the endpoint that served it could not honour, in the client's
   * field names (`tools[type=web_search]`, `reasoning.effort`); null or absent when nothing was.
   */
  omitted?: string[] | null;
  /** Searches the gateway ran and charged (contract §4a); null or absent when it ran none. */
  webSearchRequests?: number | null;
  /** The part of `cost` that is not tokens: those searches (nano-USD). */
  toolCost?: bigint | null;
  /** The batch this request was a line of (`/v1/batches`); null or absent for live requests. */
  batchId?: string | null;
  /** The response cache answered it (contract §9); absent or false otherwise. */
  cacheHit?: boolean;
}
