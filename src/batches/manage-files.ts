import type { Readable } from 'node:stream';
import type { AppContext } from '../app-context.js';
import { GatewayError, invalidRequest, notFound } from '../errors/gateway-error.js';
import { deleteFile, findFile, insertFile, type FileRecord } from './db/files.js';
import { batchSettingsOf } from './batch-settings.js';
import { BatchFileCheck } from './read-batch-line.js';
import { FileStorage } from './file-storage.js';

/** The storage of the context's files (local disk, `batch-settings.ts`). */
export function fileStorageOf(context: Pick<AppContext, 'config'>): FileStorage {
  return new FileStorage(batchSettingsOf(context.config).filesDir);
}

/** The purposes this gateway stores files for: batch input, and the output and error files it writes itself. */
export type FilePurpose = 'batch' | 'batch_output';

/**
 * Stores an uploaded batch input file: streamed to disk through the line check (a bad line stops
 * the upload, named), never held whole in memory. `tooLarge` says whether the multipart reader
 * cut the file at the size limit; then nothing is kept and the answer is 413.
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
  await storage.write(storageKey, upload.source, check);
  if (upload.tooLarge()) {
    await storage.remove(storageKey);
    const limit = batchSettingsOf(context.config).maxFileBytes;
    throw new GatewayError('payload_too_large', `The file is larger than the limit of ${limit} bytes`, { param: 'file' });
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
    await storage.remove(storageKey);
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
  await insertFile(context.store.db, record);
  return record;
}

export async function readFile(context: AppContext, accountId: string, id: string): Promise<FileRecord> {
  const file = await findFile(context.store.db, accountId, id);
  if (!file) throw notFound('File');
  return file;
}

export async function openFileContent(context: AppContext, accountId: string, id: string): Promise<{ file: FileRecord; content: Readable }> {
  const file = await readFile(context, accountId, id);
  return { file, content: fileStorageOf(context).read(file.storageKey) };
}

/** Deletes the row first (the file is then gone for every reader), then its bytes. */
export async function removeFile(context: AppContext, accountId: string, id: string): Promise<FileRecord> {
  const file = await readFile(context, accountId, id);
  if (!(await deleteFile(context.store.db, accountId, id))) throw notFound('File');
  await fileStorageOf(context).remove(file.storageKey);
  return file;
}

export function refusePurpose(purpose: unknown): GatewayError {
  return invalidRequest(`Unsupported purpose ${JSON.stringify(purpose)}: this gateway stores files for "batch"`, 'purpose');
}
