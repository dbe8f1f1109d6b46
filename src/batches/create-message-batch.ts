import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import { apiEndpointsOf } from '../catalog/catalog.js';
import { invalidRequest, notFound } from '../errors/gateway-error.js';
import { cancelBatch, createBatch } from './create-batch.js';
import type { BatchRecord } from './db/batches.js';
import { findFile } from './db/files.js';
import { countLinesByStatus, findMessageBatch } from './db/message-batches.js';
import { readLinesAfter, type BatchLineRecord } from './db/batch-lines.js';
import { fileStorageOf, storeGeneratedFile } from './manage-files.js';
import { readBatchLine, readFileLines } from './read-batch-line.js';

/** One request of a Message Batch (https://docs.anthropic.com/en/api/creating-message-batches): a Messages body under the caller's id. */
export interface MessageBatchRequest {
  custom_id: string;
  params: Record<string, unknown>;
}

/**
 * Creates a Message Batch in Anthropic's shape over the batch engine: the requests become the
 * lines of an input file (`url: /v1/messages`, stored as the gateway's own file), and the batch
 * runs like any batch on `/v1/messages` — each line a live Messages request, charged at its price.
 * What the engine's validation would refuse is refused here, naming the request, since a Message
 * Batch has no `failed` status to report it in: a duplicate `custom_id`, a model missing from the
 * catalog or not serving Messages, `stream: true`.
 */
export async function createMessageBatch(context: AppContext, principal: Principal, requests: readonly MessageBatchRequest[]): Promise<BatchRecord> {
  const seen = new Set<string>();
  requests.forEach((request, index) => {
    const at = `requests.${index}`;
    if (seen.has(request.custom_id)) throw invalidRequest(`${at}.custom_id: ${JSON.stringify(request.custom_id)} is used by an earlier request; each request needs its own`, `${at}.custom_id`);
    seen.add(request.custom_id);
    const model = request.params.model;
    if (typeof model !== 'string' || model === '') throw invalidRequest(`${at}.params.model: a model is required`, `${at}.params.model`);
    const config = context.catalog.modelById.get(model);
    if (!config || !(apiEndpointsOf(config) as string[]).includes('messages')) {
      throw invalidRequest(`${at}.params.model: ${JSON.stringify(model)} is not a model of this gateway's Messages API`, `${at}.params.model`);
    }
    if (request.params.stream === true) throw invalidRequest(`${at}.params.stream: a batched request cannot stream`, `${at}.params.stream`);
  });
  const fileId = context.createId('file');
  async function* lines(): AsyncGenerator<string> {
    for (const request of requests) yield JSON.stringify({ custom_id: request.custom_id, method: 'POST', url: '/v1/messages', body: request.params });
  }
  const file = await storeGeneratedFile(context, { id: fileId, accountId: principal.accountId, filename: `message_batch_${fileId}.jsonl`, lines: lines(), purpose: 'batch' });
  return createBatch(context, principal, { inputFileId: file.id, endpoint: '/v1/messages', completionWindow: '24h', metadata: null, kind: 'message_batch' });
}

export async function readMessageBatch(context: AppContext, accountId: string, id: string): Promise<BatchRecord> {
  const batch = await findMessageBatch(context.store.db, accountId, id);
  if (!batch) throw notFound('Message batch');
  return batch;
}

export async function cancelMessageBatch(context: AppContext, accountId: string, id: string): Promise<BatchRecord> {
  await readMessageBatch(context, accountId, id);
  return cancelBatch(context, accountId, id);
}

/** Anthropic's request counts (https://docs.anthropic.com/en/api/retrieving-message-batches). */
export interface MessageBatchCounts {
  processing: number;
  succeeded: number;
  errored: number;
  canceled: number;
  expired: number;
}

/**
 * The batch's request counts as Anthropic tallies them: every request `processing` until the
 * whole batch has ended, then each in the state it ended in. A batch whose lines could not be
 * stored (its input refused by the engine after creation) counts all of them errored.
 */
export async function countMessageBatch(context: AppContext, batch: BatchRecord): Promise<MessageBatchCounts> {
  const counts: MessageBatchCounts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
  const total = batch.total > 0 ? batch.total : ((await findFile(context.store.db, batch.accountId, batch.inputFileId))?.lineCount ?? 0);
  if (!isEnded(batch)) return { ...counts, processing: total };
  // Ended before its lines were stored (cancelled or expired while validating, or refused): all of them end so.
  if (batch.inProgressAt === null) return { ...counts, [batch.status === 'cancelled' ? 'canceled' : batch.status === 'expired' ? 'expired' : 'errored']: total };
  if (batch.status !== 'expired') {
    // The batch row's live counts say it (a list of up to 1,000 batches reads no lines): what did not end answered or failed was cancelled unrun.
    return { ...counts, succeeded: batch.completed, errored: batch.failed, canceled: Math.max(batch.total - batch.completed - batch.failed, 0) };
  }
  // An expired batch counts its unrun lines as failed (OpenAI's error file); Anthropic tells them apart.
  const lines = await countLinesByStatus(context.store.db, batch.id);
  return {
    ...counts,
    succeeded: lines.completed ?? 0,
    errored: lines.failed ?? 0,
    canceled: lines.cancelled ?? 0,
    expired: lines.expired ?? 0,
    processing: (lines.pending ?? 0) + (lines.running ?? 0),
  };
}

export function isEnded(batch: BatchRecord): boolean {
  return batch.status === 'completed' || batch.status === 'cancelled' || batch.status === 'expired' || batch.status === 'failed';
}

/**
 * An ended batch's lines in input order, read in chunks. A batch that ended before its lines
 * were stored (cancelled or expired while validating, or refused) has its requests read back from
 * its input file, each ended as the batch did and never run.
 */
export async function* readEndedLines(context: AppContext, batch: BatchRecord, chunk = 100): AsyncGenerator<BatchLineRecord> {
  if (batch.inProgressAt === null) {
    const file = await findFile(context.store.db, batch.accountId, batch.inputFileId);
    if (!file) return;
    const status = batch.status === 'cancelled' ? 'cancelled' : batch.status === 'expired' ? 'expired' : 'failed';
    for await (const { lineNo, text } of readFileLines(await fileStorageOf(context).open(file.storageKey))) {
      const line = readBatchLine(text, lineNo);
      const refusal = batch.errors?.find((error) => error.line === lineNo) ?? batch.errors?.[0];
      yield {
        batchId: batch.id,
        lineNo,
        customId: line.custom_id,
        model: String(line.body.model),
        body: line.body,
        status,
        requestId: null,
        statusCode: null,
        response: null,
        executor: 'engine',
        providerBatchId: null,
        reservationId: null,
        error: status === 'failed' ? { code: refusal?.code ?? 'invalid_request', message: refusal?.message ?? 'The batch was refused before this request ran' } : null,
      };
    }
    return;
  }
  let after = 0;
  for (;;) {
    const lines = await readLinesAfter(context.store.db, batch.id, after, chunk);
    if (lines.length === 0) return;
    after = lines[lines.length - 1].lineNo;
    yield* lines;
  }
}
