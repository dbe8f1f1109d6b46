import type { AppContext } from '../../app-context.js';
import type { Principal } from '../../auth/principal.js';
import { deleteExpiredStoredResponses, insertStoredResponse } from '../../store/repositories/stored-responses.js';
import { responseStorageOf } from './response-storage-settings.js';
import type { ResponseObject } from './responses-wire.js';

const dayMs = 86_400_000;
/** Rows deleted per sweep: each store sweeps a few, so the table holds about one retention period. */
const sweepBatch = 100;

/**
 * Keeps a finished Response (`store: true`) with the input items the model read, for the
 * operator's retention period, owned by the principal's account and key. A response larger than
 * the per-response limit is not kept (a later `previous_response_id` to it is 404), and a failed
 * write does not fail the answer already generated; neither is an error of the client, and
 * neither logs the stored text — only the id and the size.
 */
export async function storeResponse(context: AppContext, principal: Principal, response: ResponseObject, inputItems: unknown[]): Promise<void> {
  const settings = responseStorageOf(context);
  const inputText = JSON.stringify(inputItems);
  const responseText = JSON.stringify(response);
  const size = Buffer.byteLength(inputText) + Buffer.byteLength(responseText);
  if (size > settings.maxStoredBytes) {
    context.logger.warn({ responseId: response.id, size, limit: settings.maxStoredBytes }, 'response not stored: larger than the stored-response limit');
    return;
  }
  const now = context.clock.now();
  try {
    await insertStoredResponse(context.store.db, {
      id: response.id,
      accountId: principal.accountId,
      apiKeyId: principal.keyId,
      model: response.model,
      inputItems: inputText,
      response: responseText,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + settings.retentionDays * dayMs).toISOString(),
    });
  } catch (error) {
    context.logger.error({ err: error, responseId: response.id }, 'response not stored: the store failed');
    return;
  }
  await sweepExpiredResponses(context);
}

/** Deletes a batch of stored responses past their retention, by the context's clock. */
export async function sweepExpiredResponses(context: AppContext): Promise<number> {
  try {
    return await deleteExpiredStoredResponses(context.store.db, context.clock.now().toISOString(), sweepBatch);
  } catch (error) {
    context.logger.warn({ err: error }, 'stored response sweep failed');
    return 0;
  }
}
