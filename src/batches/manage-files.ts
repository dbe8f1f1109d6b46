import { Transform, type Readable } from 'node:stream';
import type { AppContext } from '../app-context.js';
import type { Config } from '../config/types.js';
import { GatewayError, invalidRequest, notFound } from '../errors/gateway-error.js';
import { deleteFile, findFile, insertFile, type FileRecord } from './db/files.js';
import { batchSettingsOf } from './batch-settings.js';
import { BatchFileCheck } from './read-batch-line.js';
import { LocalFileStorage, type FileStorage } from './file-storage.js';
import { S3FileStorage } from './s3-file-storage.js';

const storages = new WeakMap<Config, FileStorage>();

/** The storage of the context's files (`batch-settings.ts`): its S3 bucket when configured, else local disk; one per config, so one S3 client. */
export function fileStorageOf(context: Pick<AppContext, 'config' | 'logger'>): FileStorage {
  let storage = storages.get(context.config);
  if (!storage) {
    const settings = batchSettingsOf(context.config);
    storage = settings.s3 ? new S3FileStorage(settings.s3, context.logger) : new LocalFileStorage(settings.filesDir);
    storages.set(context.config, storage);
  }
  return storage;
}

/** Closes the context's file storage (its S3 client's connections), when one was made. */
export async function closeFileStorage(context: Pick<AppContext, 'config'>): Promise<void> {
  const storage = storages.get(context.config);
  storages.delete(context.config);
  await storage?.close();
}

/** The purposes this gateway stores files for: batch input, and the output and error files it writes itself. */
export type FilePurpose = 'batch' | 'batch_output';

/**
 * Stores an uploaded batch input file: streamed to storage through the line check (a bad line stops
 * the upload, named), never held whole in memory. `tooLarge` says whether the multipart reader
 * cut the file at the size limit; then nothing is kept (the storage never completes the write)
 * and the answer is 413.
 */
export async function storeUploadedFile(
  context: AppContext,
  accountId: string,
  upload: { filename: string; source: Readable; tooLarge: () => boolean },
): Promise<FileRecord> {
  const id = context.createId('file');
  const storageKey = `${id}.jsonl`;
  const storage = fileStorageOf(context);
  const check = new BatchFileCheck();
  const tooLarge = () => new GatewayError('payload_too_large', `The file is larger than the limit of ${batchSettingsOf(context.config).maxFileBytes} bytes`, { param: 'file' });
  // The reader ends a file cut at the limit: refused at its end, before its last (cut) line is checked and before storage keeps anything.
  const limit = new Transform({
    transform: (chunk, _encoding, done) => done(null, chunk),
    flush: (done) => done(upload.tooLarge() ? tooLarge() : null),
  });
  await storage.write(storageKey, upload.source, limit, check);
  if (upload.tooLarge()) {
    await discardBytes(context, storageKey);
    throw tooLarge();
  }
  const file: FileRecord = {
    id,
    accountId,
    purpose: 'batch',
    filename: upload.filename.slice(0, 255) || 'input.jsonl',
    bytes: check.bytes,
    lineCount: check.lines,
    storageKey,
    createdAt: context.clock.now().toISOString(),
  };
  try {
    await insertFile(context.store.db, file);
  } catch (error) {
    await discardBytes(context, storageKey);
    throw error;
  }
  return file;
}

/** Stores a file the gateway wrote (a batch's output or error file, or the input file of a Message Batch) under an id made beforehand. */
export async function storeGeneratedFile(
  context: AppContext,
  file: { id: string; accountId: string; filename: string; lines: AsyncIterable<string>; purpose?: FilePurpose },
): Promise<FileRecord> {
  const storageKey = `${file.id}.jsonl`;
  let bytes = 0;
  let count = 0;
  async function* counted(): AsyncGenerator<string> {
    for await (const line of file.lines) {
      bytes += Buffer.byteLength(line) + 1;
      count++;
      yield `${line}\n`;
    }
  }
  await fileStorageOf(context).write(storageKey, counted());
  const record: FileRecord = {
    id: file.id,
    accountId: file.accountId,
    purpose: file.purpose ?? 'batch_output',
    filename: file.filename,
    bytes,
    lineCount: count,
    storageKey,
    createdAt: context.clock.now().toISOString(),
  };
  try {
    await insertFile(context.store.db, record);
  } catch (error) {
    await discardBytes(context, storageKey);
    throw error;
  }
  return record;
}

export async function readFile(context: AppContext, accountId: string, id: string): Promise<FileRecord> {
  const file = await findFile(context.store.db, accountId, id);
  if (!file) throw notFound('File');
  return file;
}

export async function openFileContent(context: AppContext, accountId: string, id: string): Promise<{ file: FileRecord; content: Readable }> {
  const file = await readFile(context, accountId, id);
  return { file, content: await fileStorageOf(context).open(file.storageKey) };
}

/**
 * Deletes the row first (the file is then gone for every reader, and no row can name bytes that
 * are gone), then its bytes. Bytes the storage fails to remove are logged with their key and
 * left for the operator: the file is deleted all the same.
 */
export async function removeFile(context: AppContext, accountId: string, id: string): Promise<FileRecord> {
  const file = await readFile(context, accountId, id);
  if (!(await deleteFile(context.store.db, accountId, id))) throw notFound('File');
  await discardBytes(context, file.storageKey);
  return file;
}

/** Removes bytes no row names any more; a failure is logged (with the key, to remove by hand), never thrown. */
export async function discardBytes(context: Pick<AppContext, 'config' | 'logger'>, storageKey: string): Promise<void> {
  try {
    await fileStorageOf(context).remove(storageKey);
  } catch (error) {
    context.logger.warn({ err: error, storageKey }, 'file storage: bytes no file names were left behind');
  }
}

export function refusePurpose(purpose: unknown): GatewayError {
  return invalidRequest(`Unsupported purpose ${JSON.stringify(purpose)}: this gateway stores files for "batch"`, 'purpose');
}
