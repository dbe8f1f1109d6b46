import type { Usage } from '../core/usage.js';
import type { RequestLogErrorCode } from '../errors/request-log-codes.js';

/** How a paid call ended, as its settlement and its request log row say it. */
export type SettlementStatus = 'completed' | 'failed' | 'aborted';

/** What one paid call is settled with: its usage, the cost priced from it, how it ended. */
export interface Settlement {
  usage: Usage;
  cost: bigint;
  /** `completed`, `failed` (upstream died mid-stream) or `aborted` (the client left). */
  status: SettlementStatus;
  errorCode?: RequestLogErrorCode;
  /** What the request preferred and the endpoint could not honour, for the request log (see drop-unmet-preferences.ts). */
  omitted?: readonly string[];
  /** The response cache answered: no provider was called (the request log's `cache_hit`). */
  cacheHit?: boolean;
}
