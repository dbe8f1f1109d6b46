import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * The bytes of uploaded and generated files, on local disk: one file per id in one directory.
 * Rows of `files` say which; a write goes to `<key>.part` and is renamed when complete, so a
 * crash mid-write leaves no file a row could name. (An S3-compatible bucket is a later step.)
 */
export class FileStorage {
  constructor(readonly dir: string) {}

  /** Streams `source` through `transforms` into the file `key`; on any failure nothing is left. */
  async write(key: string, source: Readable | AsyncIterable<string | Buffer>, ...transforms: NodeJS.ReadWriteStream[]): Promise<void> {
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

  read(key: string): Readable {
    return createReadStream(this.pathOf(key));
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  private pathOf(key: string): string {
    // Keys are made by the gateway (`<file id>.jsonl`), never taken from a client.
    if (!/^[A-Za-z0-9_-]+\.jsonl$/.test(key)) throw new Error(`not a file storage key: ${key}`);
    return join(this.dir, key);
  }
}
