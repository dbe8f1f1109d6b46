import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GatewayError } from '../errors/gateway-error.js';

/** What a write reads: an upload's stream, or the lines the gateway generates. */
export type FileSource = Readable | AsyncIterable<string | Buffer>;

/**
 * The bytes of uploaded and generated files, one object per key. Keys are made by the gateway
 * (`<file id>.jsonl`), never taken from a client; rows of `files` say which key holds which file,
 * and a row is written only once its bytes are whole.
 */
export interface FileStorage {
  /**
   * Streams `source` through `transforms` into `key`, never holding the file whole; on any failure
   * (a transform refusing a line, the source breaking, the storage failing) nothing is left under
   * the key, and a transform's or the source's error is the one thrown.
   */
  write(key: string, source: FileSource, ...transforms: NodeJS.ReadWriteStream[]): Promise<void>;
  /** The bytes of `key` as a stream; rejects before the first byte when they cannot be read. */
  open(key: string): Promise<Readable>;
  /** Removes `key`; a key already gone is no error. */
  remove(key: string): Promise<void>;
  /** Releases connections (the S3 client's); the storage is not used afterwards. */
  close(): Promise<void>;
}

/** Thrown when a row names a key whose bytes are missing: a fault of ours, answered 500. */
export function missingContent(key: string, cause?: unknown): GatewayError {
  return new GatewayError('internal_error', "The file's content is missing from storage", { cause: cause ?? new Error(`no stored bytes under ${key}`) });
}

export function checkStorageKey(key: string): string {
  if (!/^[A-Za-z0-9_-]+\.jsonl$/.test(key)) throw new Error(`not a file storage key: ${key}`);
  return key;
}

/**
 * Files on local disk: one file per key in one directory. A write goes to `<key>.part` and is
 * renamed when complete, so a crash mid-write leaves no file a row could name.
 */
export class LocalFileStorage implements FileStorage {
  constructor(readonly dir: string) {}

  async write(key: string, source: FileSource, ...transforms: NodeJS.ReadWriteStream[]): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const path = this.pathOf(key);
    const partial = `${path}.part`;
    try {
      await (pipeline as (...streams: unknown[]) => Promise<void>)(source, ...transforms, createWriteStream(partial));
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  }

  async open(key: string): Promise<Readable> {
    try {
      const handle = await open(this.pathOf(key), 'r');
      return handle.createReadStream();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw missingContent(key, error);
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async close(): Promise<void> {}

  private pathOf(key: string): string {
    return join(this.dir, checkStorageKey(key));
  }
}
