import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import { discountForBatch, priceTextCeiling, priceTextUsage } from '../billing/pricing.js';
import type { RequestRecord } from '../billing/request-record.js';
import { settleInTransaction } from '../billing/settle-in-transaction.js';
import type { ModelEndpointConfig, ProviderConfig } from '../config/types.js';
import { readIdTime } from '../core/id-time.js';
import type { Usage } from '../core/usage.js';
import { GatewayError } from '../errors/gateway-error.js';
import { renderError } from '../errors/render-error.js';
import type { RequestLogErrorCode } from '../errors/request-log-codes.js';
import { toGatewayError } from '../errors/to-gateway-error.js';
import { UpstreamError } from '../errors/upstream-error.js';
import type { ProviderBatchAdapter, ProviderBatchKind, ProviderBatchRequest, ProviderBatchResult } from '../providers/batch-adapter.js';
import { providerBatchAdapterOf } from '../providers/batch-adapters.js';
import { embeddingAdapterOf } from '../providers/retrieval-adapters.js';
import { untagRequestSignatures } from '../generation/tag-signatures.js';
import { endpointMeets } from '../routing/select-candidates.js';
import { retryOnConflict } from '../store/retry-conflicts.js';
import { endLine, moveLineToEngine, providerBatchIdsOf, providerLinesOf, sendLineToProvider } from './db/batch-lines.js';
import type { BatchLineRecord } from './db/batch-lines.js';
import { countLineEnd, type BatchRecord } from './db/batches.js';
import type { DecodedLine, LineCodec, LineExecutor } from './line-executor.js';

/** Lines per provider batch submitted in one step (a chunk keeps one request to the provider small). */
const linesPerSubmission = 100;
/** A line's reservation outlives the provider's 24 h processing window and the polls after it. */
const reservationLifetimeMs = 26 * 60 * 60 * 1000;
/** The output bound of a text line that names none and whose endpoint and model name none either. */
const defaultOutputBound = 4096;

/** Where a provider-batch line goes: the endpoint that serves it, its provider, and the provider's batch API. */
export interface ProviderBatchRoute {
  endpoint: ModelEndpointConfig & { pricing: { batchDiscountPpm: bigint } };
  provider: ProviderConfig;
  adapter: ProviderBatchAdapter;
  kind: ProviderBatchKind;
}

/** The kind of line a batch endpoint holds. */
function kindOf(endpoint: string): ProviderBatchKind {
  return endpoint === '/v1/embeddings' ? 'embeddings' : 'text';
}

/**
 * The provider batch route of a line of a batch to `endpoint`, when it has one: its model's first
 * endpoint (the one routing tries first) has `pricing.batch_discount`, its provider is enabled,
 * and the provider's protocol has a batch adapter (`providers/batch-adapters.ts`) that serves the
 * line's kind there. Every other line runs on the gateway's engine at the list price.
 */
export function providerBatchRouteOf(context: AppContext, endpoint: string, model: string): ProviderBatchRoute | undefined {
  const first = context.catalog.modelById.get(model)?.endpoints[0];
  if (first?.pricing.batchDiscountPpm === undefined) return undefined;
  const provider = context.catalog.providerById.get(first.provider);
  if (!provider?.enabled) return undefined;
  const adapter = providerBatchAdapterOf(provider.api);
  const kind = kindOf(endpoint);
  if (!adapter?.kindsFor(provider).has(kind)) return undefined;
  if (kind === 'embeddings' && (adapter.encodeEmbeddings === undefined || adapter.decodeEmbeddings === undefined)) return undefined;
  return { endpoint: first as ProviderBatchRoute['endpoint'], provider, adapter, kind };
}

/**
 * Whether the provider relays the line's body itself: a `/v1/messages` line to Anthropic's own
 * Message Batches, as the live path relays a Messages request to an anthropic-wire endpoint
 * natively (unless the operator turned pass-through off). Every other line is translated.
 */
function passesThrough(context: AppContext, batch: BatchRecord, route: ProviderBatchRoute): boolean {
  return batch.endpoint === '/v1/messages' && route.provider.api === 'anthropic' && context.config.server.passThrough !== false;
}

/**
 * Whether the provider's batch can serve a decoded line as its live request would be served: the
 * endpoint honours every parameter it asks for, the request's provider preferences allow that
 * provider, and no hosted tool needs the gateway's own tool loop.
 */
function servesInBatch(context: AppContext, route: ProviderBatchRoute, decoded: DecodedLine): boolean {
  // The live path splits an embeddings request into calls of the protocol's size; a provider
  // batch request is one call, so a line with more inputs than one call takes runs on the engine.
  if (decoded.kind === 'embeddings') return decoded.request.inputs.length <= (embeddingAdapterOf(route.provider.api)?.maxInputsPerCall(route.endpoint.model) ?? 0);
  if (decoded.hostedTools) return false;
  const preferences = decoded.preferences;
  if (preferences?.only && !preferences.only.includes(route.provider.id)) return false;
  if (preferences?.ignore?.includes(route.provider.id)) return false;
  return decoded.parameters.every((parameter) => endpointMeets(context.catalog, route.endpoint, parameter));
}

/**
 * The line as its provider's batch request body, and the most it can cost at list price: every
 * byte of that body as a prompt token (a token is at least one byte) and, for text, every output
 * token allowed (the line's `max_tokens`, else the endpoint's, as the live reservation caps it).
 * Throws when the provider's encoder refuses the request (a parameter its protocol lacks).
 */
function wireBodyOf(context: AppContext, batch: BatchRecord, route: ProviderBatchRoute, line: Pick<BatchLineRecord, 'model' | 'body'>, decoded: DecodedLine): { body: Record<string, unknown>; mostCost: bigint } {
  const { pricing } = route.endpoint;
  if (decoded.kind === 'embeddings') {
    const body = route.adapter.encodeEmbeddings!(decoded.request, route.endpoint.model);
    return { body, mostCost: priceTextCeiling(pricing, Buffer.byteLength(JSON.stringify(body)), 0) };
  }
  const endpointMax = route.endpoint.maxCompletionTokens ?? undefined;
  const capped = decoded.request.maxTokens === undefined && endpointMax !== undefined ? { ...decoded.request, maxTokens: endpointMax } : decoded.request;
  const request = untagRequestSignatures(capped, route.provider.api);
  const body = passesThrough(context, batch, route) ? { ...line.body, model: route.endpoint.model, stream: false } : route.adapter.encodeText(request, route.endpoint.model);
  const wireMax = typeof body.max_tokens === 'number' ? body.max_tokens : undefined;
  const contextLength = route.endpoint.contextLength ?? context.catalog.modelById.get(line.model)?.contextLength ?? undefined;
  const maxTokens = request.maxTokens ?? wireMax ?? contextLength ?? defaultOutputBound;
  return { body, mostCost: priceTextCeiling(pricing, Buffer.byteLength(JSON.stringify(body)), maxTokens) };
}

/**
 * Where a line runs, chosen once when the batch is validated (stored with the line, so a restart
 * runs it the same way): in its provider's batch API when it has a provider batch route and the
 * provider can serve it as the live request would be served; else on the engine. A line bound for
 * a provider's batch is decoded as its live endpoint decodes it and encoded for the provider, so a
 * line either refuses here (rejecting with the live request's `GatewayError`, which validation
 * reports with the line's number) or not at all.
 */
export async function chooseLineExecutor(context: AppContext, batch: BatchRecord, line: Pick<BatchLineRecord, 'model' | 'body'>, principal: Principal | undefined, codec: LineCodec): Promise<LineExecutor> {
  const route = providerBatchRouteOf(context, batch.endpoint, line.model);
  if (!route || !principal) return 'engine';
  const decoded = await codec.decode(context, batch.endpoint, line.body, principal);
  if (!servesInBatch(context, route, decoded)) return 'engine';
  wireBodyOf(context, batch, route, line, decoded);
  return 'provider';
}

interface PreparedLine {
  line: BatchLineRecord;
  body: Record<string, unknown>;
  mostCost: bigint;
}

/**
 * Submits `lines` (pending provider lines) to their providers' batch APIs, grouped by provider,
 * provider model and kind, in chunks of at most `maxRequestsPerBatch` (and `linesPerSubmission`):
 * each line reserves durably at the most it can cost at list price (so a batch never overspends),
 * the provider batch is created, and then each line is marked running in it with its request id
 * and reservation, so a restart polls the same provider batch. When the provider refuses, the
 * reservations go back and the lines stay pending (the next step tries again). A line that can no
 * longer go (the config changed, its funds do not cover it, its `previous_response_id` is gone)
 * runs on the engine instead, where it is answered or refused as the live request would be.
 */
export async function submitProviderLines(context: AppContext, batch: BatchRecord, principal: Principal, lines: readonly BatchLineRecord[], codec: LineCodec, signal: AbortSignal): Promise<number> {
  const groups = new Map<string, { route: ProviderBatchRoute; lines: PreparedLine[] }>();
  let sent = 0;
  for (const line of lines) {
    const route = providerBatchRouteOf(context, batch.endpoint, line.model);
    const prepared = route && (await prepareLine(context, batch, principal, route, line, codec));
    if (!route || !prepared) {
      await moveLineToEngine(context.store.db, batch.id, line.lineNo);
      sent++;
      continue;
    }
    const key = `${route.provider.id}\n${route.endpoint.model}\n${route.kind}`;
    const group = groups.get(key) ?? { route, lines: [] };
    group.lines.push(prepared);
    groups.set(key, group);
  }
  for (const { route, lines: group } of groups.values()) {
    const size = Math.max(1, Math.min(linesPerSubmission, route.adapter.maxRequestsPerBatch));
    for (let start = 0; start < group.length; start += size) {
      sent += await submitChunk(context, batch, principal, route, group.slice(start, start + size), signal);
    }
  }
  return sent;
}

async function prepareLine(context: AppContext, batch: BatchRecord, principal: Principal, route: ProviderBatchRoute, line: BatchLineRecord, codec: LineCodec): Promise<PreparedLine | undefined> {
  try {
    const decoded = await codec.decode(context, batch.endpoint, line.body, principal);
    if (!servesInBatch(context, route, decoded)) return undefined;
    return { line, ...wireBodyOf(context, batch, route, line, decoded) };
  } catch {
    return undefined;
  }
}

/** Answers how many lines it handled (sent, or moved to the engine); 0 when the provider refused. */
async function submitChunk(context: AppContext, batch: BatchRecord, principal: Principal, route: ProviderBatchRoute, lines: readonly PreparedLine[], signal: AbortSignal): Promise<number> {
  const reserved: { line: BatchLineRecord; body: Record<string, unknown>; requestId: string; reservation: Awaited<ReturnType<AppContext['ledger']['reserve']>> }[] = [];
  let moved = 0;
  try {
    for (const { line, body, mostCost } of lines) {
      const requestId = context.createId('req');
      try {
        const reservation = await context.ledger.reserve({ accountId: principal.accountId, keyId: principal.keyId, requestId, amount: mostCost, durable: true, lifetimeMs: reservationLifetimeMs });
        reserved.push({ line, body, requestId, reservation });
      } catch (error) {
        if (!(error instanceof GatewayError) || error.status !== 402) throw error;
        // Not affordable at its ceiling: the engine runs it as the live request (which caps max_tokens or refuses).
        await moveLineToEngine(context.store.db, batch.id, line.lineNo);
        moved++;
      }
    }
    if (reserved.length === 0) return moved;
    const requests: ProviderBatchRequest[] = reserved.map(({ line, body }) => ({ customId: customIdOf(line), body }));
    const created = await route.adapter.create(route.provider, route.endpoint.model, route.kind, requests, signal);
    for (const { line, requestId, reservation } of reserved) {
      await sendLineToProvider(context.store.db, batch.id, line.lineNo, { requestId, providerBatchId: created.id, reservationId: reservation.amount > 0n ? reservation.id : null });
    }
    return reserved.length + moved;
  } catch (error) {
    for (const { reservation } of reserved) await context.ledger.release(reservation);
    if (error instanceof UpstreamError && !error.retryable && !signal.aborted) {
      // The provider refuses this submission for good (a 4xx such as a batch too large): asking
      // again would fail the same way until the batch expires, so the lines run on the engine.
      context.logger.warn({ err: error, batch: batch.id, provider: route.provider.id }, 'provider batch submission refused; the lines run on the engine at list price');
      for (const { line } of reserved) await moveLineToEngine(context.store.db, batch.id, line.lineNo);
      return moved + reserved.length;
    }
    context.logger.warn({ err: error, batch: batch.id, provider: route.provider.id }, 'provider batch submission failed; the lines stay pending');
    return moved;
  }
}

/** A provider's `custom_id` may be as narrow as `[a-zA-Z0-9_-]{1,64}`; a client's may not fit, so the line number stands in. */
function customIdOf(line: BatchLineRecord): string {
  return `line-${line.lineNo}`;
}

/**
 * Polls this batch's provider batches; for each that has ended, settles every line in it from its
 * result (`settleProviderLine`). `closing` (the batch was cancelled or expired): a provider batch
 * still running is asked to cancel first, and is polled until it ends, since the requests it ran
 * before the cancel are billed. Answers whether no provider batch of this batch is left running.
 * The books never settle one request id twice, so a restart mid-way charges no line twice.
 */
export async function pollProviderLines(context: AppContext, batch: BatchRecord, principal: Principal, codec: LineCodec, signal: AbortSignal, closing?: 'cancelled' | 'expired'): Promise<boolean> {
  let open = false;
  for (const providerBatchId of await providerBatchIdsOf(context.store.db, batch.id)) {
    const lines = await providerLinesOf(context.store.db, batch.id, providerBatchId);
    if (lines.length === 0) continue;
    const route = providerBatchRouteOf(context, batch.endpoint, lines[0].model);
    if (!route) {
      // The config lost the provider: nobody can ask it. A closing batch fails its lines uncharged.
      if (closing === undefined) open = true;
      else for (const line of lines) await settleProviderLine(context, batch, undefined, principal, codec, line, { customId: customIdOf(line), kind: closing === 'expired' ? 'expired' : 'canceled' });
      continue;
    }
    let state = await route.adapter.retrieve(route.provider, providerBatchId, signal);
    if (!state.ended && closing !== undefined) {
      await route.adapter.cancel(route.provider, providerBatchId, signal);
      state = await route.adapter.retrieve(route.provider, providerBatchId, signal);
    }
    if (!state.ended) {
      open = true;
      continue;
    }
    const results = new Map<string, ProviderBatchResult>();
    for (const result of await route.adapter.results(route.provider, state, signal)) results.set(result.customId, result);
    for (const line of lines) {
      let result = results.get(customIdOf(line)) ?? { customId: customIdOf(line), kind: 'errored', status: 500, error: 'the provider returned no result for this request' };
      // What our cancel of an expired batch stopped, expired with it.
      if (closing === 'expired' && result.kind === 'canceled') result = { customId: result.customId, kind: 'expired' };
      await settleProviderLine(context, batch, route, principal, codec, line, result);
    }
  }
  return !open;
}

/** What a line's result comes to: its end in the batch and its request log row. */
interface LineSettlement {
  succeeded: boolean;
  usage?: Usage;
  cost: bigint;
  statusCode: number;
  body: unknown;
  error: { code: string; message: string } | null;
  errorMessage: string | null;
  /** The request log's code of a failed line. */
  logCode?: RequestLogErrorCode;
}

/**
 * Ends one line from its result in one transaction: the line's end (the compare-and-set that
 * makes it once) and the settlement of its reservation with its request log row. A succeeded
 * line is charged the live rule's cost of its usage × the discount, its answer encoded in the
 * line's style; any other result nothing. `route` is absent only when the config lost it since
 * (then the line cannot be priced: it fails).
 */
async function settleProviderLine(context: AppContext, batch: BatchRecord, route: ProviderBatchRoute | undefined, principal: Principal, codec: LineCodec, line: BatchLineRecord, result: ProviderBatchResult): Promise<void> {
  const requestId = line.requestId!;
  const now = context.clock.now();
  const settlement = route === undefined ? lostSettlement(result) : await settlementOf(context, batch, route, principal, codec, line, result);
  const { succeeded, usage, cost } = settlement;
  const row: RequestRecord = {
    id: requestId,
    accountId: batch.accountId,
    keyId: batch.keyId,
    model: line.model,
    provider: route?.provider.id ?? null,
    endpoint: batch.endpoint.slice('/v1'.length),
    streamed: false,
    status: succeeded ? 'completed' : 'failed',
    errorCode: succeeded ? null : (settlement.logCode ?? 'upstream_error'),
    errorMessage: settlement.errorMessage,
    latencyMs: Math.max(0, now.getTime() - (readIdTime(requestId) ?? now.getTime())),
    promptTokens: usage?.promptTokens ?? 0,
    completionTokens: usage?.completionTokens ?? 0,
    cachedTokens: usage?.cachedPromptTokens ?? 0,
    reasoningTokens: usage?.reasoningTokens ?? 0,
    cost,
    estimated: usage?.estimated === true,
    createdAt: new Date(readIdTime(requestId) ?? now.getTime()).toISOString(),
    batchId: batch.id,
  };
  const ended = await retryOnConflict(() =>
    context.store.db.transaction().execute(async (trx) => {
      const won = await endLine(trx, batch.id, line.lineNo, { status: succeeded ? 'completed' : 'failed', statusCode: settlement.statusCode, response: settlement.body, error: settlement.error });
      if (!won) return false;
      await settleInTransaction(context.store, trx, {
        items: [{ row, settlement: { reservationId: line.reservationId, accountId: batch.accountId, keyId: batch.keyId, requestId, cost } }],
        createdAt: now.toISOString(),
        ledgerId: () => context.createId('led'),
      });
      return true;
    }),
  );
  if (ended) await countLineEnd(context.store.db, batch.id, succeeded ? 'completed' : 'failed');
}

/** A line whose provider the config lost: it cannot be priced or read, so it fails uncharged. */
function lostSettlement(result: ProviderBatchResult): LineSettlement {
  const expired = result.kind === 'expired';
  const message = result.kind === 'canceled' || expired ? `The provider's batch answered ${result.kind} for this line` : 'The endpoint that ran this line is no longer in the catalog';
  return { succeeded: false, cost: 0n, statusCode: 0, body: null, error: { code: expired ? 'batch_expired' : result.kind === 'canceled' ? 'batch_cancelled' : 'upstream_error', message }, errorMessage: message };
}

async function settlementOf(context: AppContext, batch: BatchRecord, route: ProviderBatchRoute, principal: Principal, codec: LineCodec, line: BatchLineRecord, result: ProviderBatchResult): Promise<LineSettlement> {
  const requestId = line.requestId!;
  const errorStyle = batch.endpoint === '/v1/messages' ? 'anthropic' : 'openai';
  if (result.kind === 'errored') {
    const detail = JSON.stringify(result.error).slice(0, 500);
    const errorMessage = `The provider's batch answered errored for this line: ${detail}`;
    // Messages to Anthropic: the provider's own envelope, as the live relay shows it. Otherwise the
    // gateway's envelope in the line's style, as the live request's upstream failure renders.
    if (passesThrough(context, batch, route) && typeof result.error === 'object' && result.error !== null) {
      return { succeeded: false, cost: 0n, statusCode: result.status, body: result.error, error: null, errorMessage };
    }
    const failure = toGatewayError(new UpstreamError({ provider: route.provider.id, status: result.status, message: errorMessage, body: detail, retryable: false }));
    return { succeeded: false, cost: 0n, statusCode: failure.status, body: renderError(failure, requestId, errorStyle), error: null, errorMessage, logCode: failure.code };
  }
  if (result.kind !== 'succeeded') return lostSettlement(result);
  const answer = result.body;
  try {
    const decoded = await codec.decode(context, batch.endpoint, line.body, principal);
    const meta = { id: requestId, model: line.model, created: Math.floor(context.clock.now().getTime() / 1000) };
    const { pricing } = route.endpoint;
    if (decoded.kind === 'embeddings') {
      const vectors = route.adapter.decodeEmbeddings!(answer, decoded.request);
      const usage: Usage = { promptTokens: vectors.promptTokens, completionTokens: 0, ...(vectors.estimated && { estimated: true }) };
      const cost = discountForBatch(priceTextUsage(pricing, usage), pricing.batchDiscountPpm);
      return { succeeded: true, usage, cost, statusCode: 200, body: decoded.encode(vectors, line.model, cost), error: null, errorMessage: null };
    }
    const text = route.adapter.decodeText(answer, route.provider, decoded.request);
    const cost = discountForBatch(priceTextUsage(pricing, text.usage), pricing.batchDiscountPpm);
    const body = passesThrough(context, batch, route) ? { ...answer, model: line.model } : await decoded.encode(text, meta, cost);
    return { succeeded: true, usage: text.usage, cost, statusCode: 200, body, error: null, errorMessage: null };
  } catch (error) {
    // An answer the gateway cannot read back is not charged: the line fails as the live request would.
    context.logger.error({ err: error, batch: batch.id, line: line.lineNo }, 'a provider batch answer could not be read');
    const failure = toGatewayError(error);
    return { succeeded: false, cost: 0n, statusCode: failure.status, body: renderError(failure, requestId, errorStyle), error: null, errorMessage: failure.message, logCode: failure.code };
  }
}
