import type { AppContext } from '../app-context.js';
import type { ImageInput } from '../core/image-request.js';
import { deleteExpiredMediaFiles, findMediaFile, insertMediaFiles, type MediaFileRecord } from '../store/repositories/media-files.js';
import { mediaSettingsOf } from './media-settings.js';

/**
 * Images the gateway serves itself for `response_format: "url"` and for finished asynchronous
 * jobs, owned by the account, until `media.file_ttl_seconds` passes. Storing also sweeps a few
 * expired files, so the table stays as large as one TTL's worth of images.
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
  await deleteExpiredMediaFiles(context.store.db, now.toISOString(), 100).catch((error: unknown) => context.logger.warn({ err: error }, 'media file sweep failed'));
  return ids;
}

export function readMediaFile(context: AppContext, accountId: string, id: string): Promise<MediaFileRecord | undefined> {
  return findMediaFile(context.store.db, accountId, id, context.clock.now().toISOString());
}

/** The gateway path a stored file is served at. */
export function mediaFilePath(id: string): string {
  return `/v1/media/files/${encodeURIComponent(id)}`;
}
