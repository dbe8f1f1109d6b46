import type { AppContext } from '../app-context.js';
import type { ImageInput } from '../core/image-request.js';
import { deleteExpiredMediaFiles, findMediaFile, insertMediaFiles, type MediaFileRecord } from '../store/repositories/media-files.js';
import { runInBatches, type BatchRun } from '../store/run-in-batches.js';
import { mediaSettingsOf } from './media-settings.js';

/**
 * Images the gateway serves itself for `response_format: "url"` and for finished asynchronous
 * jobs, owned by the account, until `media.file_ttl_seconds` passes. Storing also sweeps a few
 * expired files (`sweepExpiredMediaFiles`), so the table stays as large as one TTL's worth of images.
 */
export async function storeMediaFiles(
  context: AppContext,
  owner: { accountId: string; requestId: string },
  images: ImageInput[],
  ids: string[] = images.map(() => context.createId('file')),
): Promise<string[]> {
  const now = context.clock.now();
  const expiresAt = new Date(now.getTime() + mediaSettingsOf(context).fileTtlSeconds * 1000).toISOString();
  await insertMediaFiles(
    context.store.db,
    images.map((image, index) => ({
      id: ids[index],
      accountId: owner.accountId,
      requestId: owner.requestId,
      contentType: image.contentType,
      data: image.bytes,
      createdAt: now.toISOString(),
      expiresAt,
    })),
  );
  await sweepExpiredMediaFiles(context, now.toISOString()).catch((error: unknown) => context.logger.warn({ err: error }, 'media file sweep failed'));
  return ids;
}

/**
 * Up to 100 expired files per store, 10 to a statement with a yield between: a file is up to an
 * image's bytes, and freeing a hundred of them at once would hold SQLite's thread for long.
 */
export function sweepExpiredMediaFiles(context: Pick<AppContext, 'store'>, now: string): Promise<BatchRun> {
  return runInBatches((limit) => deleteExpiredMediaFiles(context.store.db, now, limit), { batchSize: mediaSweepBatch, maxBatches: 10 });
}

export const mediaSweepBatch = 10;

export function readMediaFile(context: AppContext, accountId: string, id: string): Promise<MediaFileRecord | undefined> {
  return findMediaFile(context.store.db, accountId, id, context.clock.now().toISOString());
}

/** The gateway path a stored file is served at. */
export function mediaFilePath(id: string): string {
  return `/v1/media/files/${encodeURIComponent(id)}`;
}
