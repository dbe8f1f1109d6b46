import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import type { EmbeddingRequest, EmbeddingResult } from '../core/embedding-request.js';
import type { ProviderPreferences } from '../core/provider-preferences.js';
import type { RequestedParameter } from '../core/text-call.js';
import type { TextRequest } from '../core/text-request.js';
import type { TextResult } from '../core/text-result.js';
import type { BatchRecord } from './db/batches.js';
import type { BatchLineRecord } from './db/batch-lines.js';

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
 * A batch line in the canonical form a provider batch adapter encodes (`providers/batch-adapter.ts`),
 * decoded by its endpoint's live decoder, with the way back: `encode` makes a provider's answer the
 * body a live request to that endpoint would get (the gateway's request id, the catalog model id).
 */
export type DecodedLine =
  | {
      kind: 'text';
      request: TextRequest;
      /** The parameters the request asks of an endpoint (routing's `endpointMeets`). */
      parameters: readonly RequestedParameter[];
      /** Hosted tools the gateway would run for it (its own tool loop: never in a provider's batch). */
      hostedTools: boolean;
      /** The request's provider preferences (OpenRouter's `provider`), which may rule the batch's provider out. */
      preferences: ProviderPreferences | undefined;
      encode(result: TextResult, meta: { id: string; model: string; created: number }, cost: bigint): Promise<unknown>;
    }
  | { kind: 'embeddings'; request: EmbeddingRequest; encode(result: EmbeddingResult, model: string, cost: bigint): unknown };

/**
 * The endpoints' styles for the provider-batch executor (`run-provider-batch.ts`): the live
 * decoders and encoders of `/v1/chat/completions`, `/v1/responses`, `/v1/messages` and
 * `/v1/embeddings`, which live in the API layer above this one, so the composition root hands
 * the codec in (`api/batches/line-codec.ts`), as it hands in the `LineRunner`.
 */
export interface LineCodec {
  /**
   * Decodes a line's body as the live endpoint does (Responses: `previous_response_id` resolved
   * first, for `principal`); rejects with the `GatewayError` the live request would answer.
   */
  decode(context: AppContext, endpoint: string, body: Record<string, unknown>, principal: Principal): Promise<DecodedLine>;
}

/** How a line runs: what `runLines` and the provider-batch executor are handed in. */
export interface LineHandlers {
  run: LineRunner;
  codec: LineCodec;
}

/**
 * Where a line runs: on the gateway's own task engine, at the endpoint's normal price
 * (`engine`), or in its provider's batch API at the endpoint's `pricing.batch_discount`
 * (`provider`, run-provider-batch.ts). Lines stored as `anthropic` (before any protocol had a
 * batch adapter but Anthropic) are provider lines: every executor but `engine` is.
 */
export type LineExecutor = 'engine' | 'provider';
