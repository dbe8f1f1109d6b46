import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import { invalidRequest, notFound } from '../errors/gateway-error.js';
import { findBatch, insertBatch, requestCancel, type BatchKind, type BatchRecord } from './db/batches.js';
import { messageBatchPrefix } from './db/message-batches.js';
import { findFile } from './db/files.js';

/** The endpoints a batch's lines may call (contract §9). */
export const batchEndpoints = ['/v1/chat/completions', '/v1/responses', '/v1/messages', '/v1/embeddings'] as const;
export type BatchEndpoint = (typeof batchEndpoints)[number];

const completionWindowMs = 24 * 60 * 60 * 1000;

/**
 * Creates a batch over an uploaded input file: the row (`validating`) and its task, which reads
 * and checks the file and then runs its lines (run-batch.ts). Answers at once, as OpenAI does;
 * the batch's status and `errors` say how validation went.
 */
export async function createBatch(
  context: AppContext,
  principal: Principal,
  input: { inputFileId: string; endpoint: BatchEndpoint; completionWindow: '24h'; metadata: Record<string, string> | null; kind?: BatchKind },
): Promise<BatchRecord> {
  const file = await findFile(context.store.db, principal.accountId, input.inputFileId);
  if (!file) throw notFound('File');
  if (file.purpose !== 'batch') throw invalidRequest(`The file ${file.id} is not a batch input file (its purpose is "${file.purpose}")`, 'input_file_id');
  const now = context.clock.now();
  const kind = input.kind ?? 'batch';
  // A Message Batch's id is Anthropic's `msgbatch_…`.
  const id = context.createId(kind === 'message_batch' ? messageBatchPrefix : 'batch');
  await insertBatch(context.store.db, {
    id,
    accountId: principal.accountId,
    keyId: principal.keyId,
    endpoint: input.endpoint,
    inputFileId: file.id,
    completionWindow: input.completionWindow,
    kind,
    metadata: input.metadata,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + completionWindowMs).toISOString(),
  });
  await context.tasks.create({
    accountId: principal.accountId,
    keyId: principal.keyId,
    kind: 'batch',
    model: 'batch',
    provider: 'gateway',
    input: { batchId: id },
    idempotencyKey: null,
    requestId: null,
    reservation: null,
    // Due at once: the batch has nothing to submit anywhere before it runs.
    providerJobId: id,
  });
  return (await findBatch(context.store.db, principal.accountId, id))!;
}

export async function readBatch(context: AppContext, accountId: string, id: string): Promise<BatchRecord> {
  const batch = await findBatch(context.store.db, accountId, id);
  if (!batch) throw notFound('Batch');
  return batch;
}

/**
 * Cancels a batch: it turns `cancelling` at once; its task stops starting lines, lets the ones in
 * flight end (they are charged like any answered request), closes the rest uncharged and ends the
 * batch `cancelled`. A batch already finished answers as it is.
 */
export async function cancelBatch(context: AppContext, accountId: string, id: string): Promise<BatchRecord> {
  await readBatch(context, accountId, id);
  await requestCancel(context.store.db, accountId, id, context.clock.now().toISOString());
  return readBatch(context, accountId, id);
}
