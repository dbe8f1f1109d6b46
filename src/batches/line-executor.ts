import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import type { BatchRecord } from './db/batches.js';
import type { BatchLineRecord } from './db/batch-lines.js';
import { providerBatchRouteOf } from './run-provider-batch.js';

/**
 * What became of one line's run: an answer (the body a live request would have got), a failure
 * the client would have seen (its status and error envelope; what the request log row says), or
 * stopped before either (the batch's run was interrupted: the line runs again later).
 */
export type LineOutcome =
  | { kind: 'answered'; statusCode: number; body: unknown }
  | { kind: 'failed'; statusCode: number; body: unknown; code: string; message: string; /** The provider rate limited the line (and no other took it): it runs again later, uncharged. */ rateLimited?: { retryAfterSeconds?: number } }
  | { kind: 'stopped' };

/** One line, as its executor runs it: under the batch creator's key, logged under `requestId`. */
export interface LineRun {
  batch: BatchRecord;
  line: BatchLineRecord;
  requestId: string;
  principal: Principal;
  signal: AbortSignal;
}

/**
 * Runs a line through the same paid path as the live endpoint (`api/batches/run-batch-line.ts`:
 * the text turn of `/v1/chat/completions`, `/v1/responses` or `/v1/messages`, or the embeddings
 * call of `/v1/embeddings`). Handed in by the
 * composition root, since that path lives in the API layer above this one.
 */
export type LineRunner = (context: AppContext, run: LineRun) => Promise<LineOutcome>;

/**
 * Where a line runs: on the gateway's own task engine, at the endpoint's normal price
 * (`engine`), or in Anthropic's Message Batches at the endpoint's `pricing.batch_discount`
 * (`anthropic`, run-provider-batch.ts).
 */
export type LineExecutor = 'engine' | 'anthropic';

/**
 * The one place that picks a line's executor, once, when the batch is validated (the choice is
 * stored with the line, so a restart runs it the same way). A line whose model's first endpoint
 * has a provider batch route goes there; every other line runs on the engine. OpenAI Batch and
 * Gemini batch mode are later executors, added here.
 */
export function chooseLineExecutor(context: AppContext, batch: BatchRecord, model: string): LineExecutor {
  return providerBatchRouteOf(context, batch, model) ? 'anthropic' : 'engine';
}
