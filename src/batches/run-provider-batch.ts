import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import { priceTextCeiling, priceTextUsage, discountForBatch } from '../billing/pricing.js';
import type { RequestRecord } from '../billing/request-record.js';
import { settleInTransaction } from '../billing/settle-in-transaction.js';
import type { ModelEndpointConfig, ProviderConfig } from '../config/types.js';
import { readIdTime } from '../core/id-time.js';
import { mapAnthropicUsage } from '../providers/anthropic/map-usage.js';
import { statusOfAnthropicErrorType } from '../providers/anthropic/map-error.js';
import { createMessageBatch, readMessageBatchResults, retrieveMessageBatch, type MessageBatchResult } from '../providers/anthropic/message-batches.js';
import { retryOnConflict } from '../store/retry-conflicts.js';
import { endLine, moveLineToEngine, providerBatchIdsOf, providerLinesOf, sendLineToProvider } from './db/batch-lines.js';
import { countLineEnd, type BatchRecord } from './db/batches.js';
import type { BatchLineRecord } from './db/batch-lines.js';

/** Lines per provider batch submitted in one step (Anthropic takes up to 100,000; a chunk keeps one request small). */
const linesPerSubmission = 100;
/** A line's reservation outlives the provider's 24 h processing window and the polls after it. */
const reservationLifetimeMs = 26 * 60 * 60 * 1000;

/** Where a provider-batch line goes: the endpoint that serves it and its provider. */
export interface ProviderBatchRoute {
  endpoint: ModelEndpointConfig & { pricing: { batchDiscountPpm: bigint } };
  provider: ProviderConfig;
}

/**
 * The provider batch route of a line, when it has one: a `/v1/messages` line whose model's first
 * endpoint (the one routing tries first) is on Anthropic's own API, enabled, with
 * `pricing.batch_discount`. Every other line runs on the gateway's engine at the list price.
 */
export function providerBatchRouteOf(context: AppContext, batch: BatchRecord, model: string): ProviderBatchRoute | undefined {
  if (batch.endpoint !== '/v1/messages') return undefined;
  const endpoint = context.catalog.modelById.get(model)?.endpoints[0];
  if (endpoint?.pricing.batchDiscountPpm === undefined) return undefined;
  const provider = context.catalog.providerById.get(endpoint.provider);
  if (!provider?.enabled || provider.api !== 'anthropic' || provider.platform !== undefined) return undefined;
  return { endpoint: endpoint as ProviderBatchRoute['endpoint'], provider };
}

/**
 * Submits `lines` (pending, all with a provider route) as Anthropic Message Batches, one per
 * provider: each line reserves durably at the most it can cost at list price (so a batch never
 * overspends), the batch is created, and then each line is marked running in it with its
 * request id and reservation, so a restart polls the same provider batch. When the provider
 * refuses, the reservations go back and the lines stay pending (the next step tries again).
 */
export async function submitProviderLines(context: AppContext, batch: BatchRecord, principal: Principal, lines: readonly BatchLineRecord[], signal: AbortSignal): Promise<number> {
  const byProvider = new Map<string, { route: ProviderBatchRoute; lines: BatchLineRecord[] }>();
  let sent = 0;
  for (const line of lines) {
    const route = providerBatchRouteOf(context, batch, line.model);
    if (!route) {
      // The config changed since validation: the line runs on the engine at the list price.
      await moveLineToEngine(context.store.db, batch.id, line.lineNo);
      sent++;
      continue;
    }
    const group = byProvider.get(route.provider.id) ?? { route, lines: [] };
    group.lines.push(line);
    byProvider.set(route.provider.id, group);
  }
  for (const { route, lines: group } of byProvider.values()) {
    for (let start = 0; start < group.length; start += linesPerSubmission) {
      sent += await submitChunk(context, batch, principal, route, group.slice(start, start + linesPerSubmission), signal);
    }
  }
  return sent;
}

/** Answers how many lines it sent (0 when the provider or the funds refused). */
async function submitChunk(context: AppContext, batch: BatchRecord, principal: Principal, route: ProviderBatchRoute, lines: readonly BatchLineRecord[], signal: AbortSignal): Promise<number> {
  const reserved: { line: BatchLineRecord; requestId: string; reservation: Awaited<ReturnType<AppContext['ledger']['reserve']>> }[] = [];
  try {
    for (const line of lines) {
      const requestId = context.createId('req');
      const amount = mostCostOf(route, line.body);
      const reservation = await context.ledger.reserve({ accountId: principal.accountId, keyId: principal.keyId, requestId, amount, durable: true, lifetimeMs: reservationLifetimeMs });
      reserved.push({ line, requestId, reservation });
    }
    const requests = reserved.map(({ line }) => ({ custom_id: customIdOf(line), params: { ...line.body, model: route.endpoint.model, stream: false } }));
    const created = await createMessageBatch(route.provider, requests, signal);
    for (const { line, requestId, reservation } of reserved) {
      await sendLineToProvider(context.store.db, batch.id, line.lineNo, { requestId, providerBatchId: created.id, reservationId: reservation.amount > 0n ? reservation.id : null });
    }
    return reserved.length;
  } catch (error) {
    for (const { reservation } of reserved) await context.ledger.release(reservation);
    // An unaffordable line fails like the live request would; a provider refusal is retried by the next step.
    context.logger.warn({ err: error, batch: batch.id, provider: route.provider.id }, 'provider batch submission failed; the lines stay pending');
    return 0;
  }
}

/**
 * The most a line can cost at list price: every byte of its body as a prompt token (a token is
 * at least one byte) and its `max_tokens` (required by Messages) of output.
 */
function mostCostOf(route: ProviderBatchRoute, body: Record<string, unknown>): bigint {
  const promptBound = Buffer.byteLength(JSON.stringify(body));
  const maxTokens = typeof body.max_tokens === 'number' ? body.max_tokens : (route.endpoint.maxCompletionTokens ?? 4096);
  return priceTextCeiling(route.endpoint.pricing, promptBound, maxTokens);
}

/** Anthropic's `custom_id` allows `[a-zA-Z0-9_-]{1,64}`; a client's may not fit, so the line number stands in. */
function customIdOf(line: BatchLineRecord): string {
  return `line-${line.lineNo}`;
}

/**
 * Polls this batch's provider batches; for each that has ended, settles every line in it from its
 * result: succeeded at the live price rule's cost × the endpoint's discount, with its request
 * log row; errored, canceled or expired with nothing charged (its row a failure, the reservation
 * released). Each line's settlement and its end commit in one transaction, and the books never
 * settle one request id twice, so a restart mid-way charges no line twice.
 */
export async function pollProviderLines(context: AppContext, batch: BatchRecord, signal: AbortSignal): Promise<void> {
  for (const providerBatchId of await providerBatchIdsOf(context.store.db, batch.id)) {
    const lines = await providerLinesOf(context.store.db, batch.id, providerBatchId);
    if (lines.length === 0) continue;
    const route = providerBatchRouteOf(context, batch, lines[0].model);
    if (!route) continue;
    const status = await retrieveMessageBatch(route.provider, providerBatchId, signal);
    if (status.processing_status !== 'ended' || status.results_url === null) continue;
    const results = new Map<string, MessageBatchResult['result']>();
    for (const item of await readMessageBatchResults(route.provider, status.results_url, signal)) results.set(item.custom_id, item.result);
    for (const line of lines) await settleProviderLine(context, batch, route, line, results.get(customIdOf(line)) ?? { type: 'errored', error: 'no result for this request' });
  }
}

/**
 * Ends one line from its result in one transaction: the line's end (the compare-and-set that
 * makes it once) and the settlement of its reservation with its request log row. A succeeded
 * line is charged the live rule's cost of its usage × the discount; any other result nothing.
 * `route` is absent only when the config lost it since (then the line cannot be priced: it fails).
 */
async function settleProviderLine(context: AppContext, batch: BatchRecord, route: ProviderBatchRoute | undefined, line: BatchLineRecord, given: MessageBatchResult['result']): Promise<void> {
  const requestId = line.requestId!;
  const now = context.clock.now();
  const result = route === undefined && given.type === 'succeeded' ? ({ type: 'errored', error: 'the endpoint is no longer in the catalog' } as const) : given;
  const succeeded = result.type === 'succeeded';
  const usage = succeeded ? mapAnthropicUsage(result.message.usage as never) : undefined;
  const cost = usage && route ? discountForBatch(priceTextUsage(route.endpoint.pricing, usage), route.endpoint.pricing.batchDiscountPpm) : 0n;
  const errorMessage = succeeded ? null : `The provider's batch answered ${result.type} for this line${result.type === 'errored' ? `: ${JSON.stringify(result.error).slice(0, 500)}` : ''}`;
  const row: RequestRecord = {
    id: requestId,
    accountId: batch.accountId,
    keyId: batch.keyId,
    model: line.model,
    provider: route?.provider.id ?? null,
    endpoint: '/messages',
    streamed: false,
    status: succeeded ? 'completed' : 'failed',
    errorCode: succeeded ? null : 'upstream_error',
    errorMessage,
    latencyMs: Math.max(0, now.getTime() - (readIdTime(requestId) ?? now.getTime())),
    promptTokens: usage?.promptTokens ?? 0,
    completionTokens: usage?.completionTokens ?? 0,
    cachedTokens: usage?.cachedPromptTokens ?? 0,
    reasoningTokens: usage?.reasoningTokens ?? 0,
    cost,
    estimated: false,
    createdAt: new Date(readIdTime(requestId) ?? now.getTime()).toISOString(),
    batchId: batch.id,
  };
  // An errored request carries Anthropic's error envelope: the line shows it with its status, as
  // the live request's failure would; a canceled or expired one never ran (no response).
  const body = succeeded ? { ...result.message, model: line.model } : result.type === 'errored' && typeof result.error === 'object' && result.error !== null ? result.error : null;
  const statusCode = succeeded ? 200 : body !== null ? errorStatusOf(body) : 0;
  const error = body !== null ? null : { code: result.type === 'expired' ? 'batch_expired' : result.type === 'canceled' ? 'batch_cancelled' : 'upstream_error', message: errorMessage! };
  const ended = await retryOnConflict(() =>
    context.store.db.transaction().execute(async (trx) => {
      const won = await endLine(trx, batch.id, line.lineNo, { status: succeeded ? 'completed' : 'failed', statusCode, response: body, error });
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

/** The HTTP status an errored result's error type stands for, as for a live answer. */
function errorStatusOf(envelope: object): number {
  const type = (envelope as { error?: { type?: unknown } }).error?.type;
  return (typeof type === 'string' ? statusOfAnthropicErrorType[type] : undefined) ?? 500;
}

/** A line the batch left in a provider batch when it was cancelled or expired: failed, nothing charged, its reservation released. */
export async function abandonProviderLine(context: AppContext, batch: BatchRecord, line: BatchLineRecord, status: 'cancelled' | 'expired'): Promise<void> {
  await settleProviderLine(context, batch, providerBatchRouteOf(context, batch, line.model), line, { type: status === 'expired' ? 'expired' : 'canceled' });
}
