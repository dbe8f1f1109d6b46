import type { AppContext } from '../../app-context.js';
import type { Principal } from '../../auth/principal.js';
import { storedResponseWriterOf } from './stored-response-writer.js';
import { responseStorageOf } from './response-storage-settings.js';
import type { ResponseObject } from './responses-wire.js';

const dayMs = 86_400_000;

/**
 * Keeps a finished Response (`store: true`) with the input items the model read, for the
 * operator's retention period, owned by the principal's account and key (group-committed, see
 * `stored-response-writer.ts`). A response larger than
 * the per-response limit is not kept (a later `previous_response_id` to it is 404), and a failed
 * write does not fail the answer already generated; neither is an error of the client, and
 * neither logs the stored text — only the id and the size. A `free` one (a warm-up, which no
 * request-log row records) is logged here, at info, with its owner and size.
 */
export async function storeResponse(context: AppContext, principal: Principal, response: ResponseObject, inputItems: unknown[], free = false): Promise<void> {
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
    await storedResponseWriterOf(context).write({
      id: response.id,
      accountId: principal.accountId,
      apiKeyId: principal.keyId,
      model: response.model,
      inputItems: inputText,
      response: responseText,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + settings.retentionDays * dayMs).toISOString(),
      free,
    });
    if (free) context.logger.info({ responseId: response.id, accountId: principal.accountId, keyId: principal.keyId, size }, 'free response stored');
  } catch (error) {
    context.logger.error({ err: error, responseId: response.id }, 'response not stored: the store failed');
  }
}
