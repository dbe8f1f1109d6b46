import type { S3Client } from '@aws-sdk/client-s3';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { S3FileStorageConfig } from '../config/types.js';
import { GatewayError } from '../errors/gateway-error.js';
import { checkStorageKey, missingContent, type FileSource, type FileStorage } from './file-storage.js';

/** The AWS SDK's S3 modules (loaded on first use: a gateway on local disk never pays their start-up) and the one client. */
interface S3Sdk {
  s3: typeof import('@aws-sdk/client-s3');
  Upload: typeof import('@aws-sdk/lib-storage').Upload;
  client: S3Client;
}

/** The upload broke because the bucket refused or did not answer (not because of its source). */
class StorageBroke extends Error {
  constructor(readonly reason: unknown) {
    super('the file storage failed', { cause: reason });
  }
}

/**
 * Files in an S3-compatible bucket (AWS S3, MinIO, R2, …), under the configured prefix. A write is
 * `lib-storage`'s `Upload`: the stream is cut into 5 MiB parts, at most two in flight, so memory
 * stays bounded whatever the file's size (one PutObject when the whole file fits one part, which
 * is sent only once the stream has ended well). When the source or a transform fails, the
 * upload reads an error: no PutObject is sent, or the multipart upload is aborted, so no object
 * is left. Failures of the bucket are logged with S3's error and answered 503.
 */
export class S3FileStorage implements FileStorage {
  private loaded: Promise<S3Sdk> | undefined;

  constructor(
    private readonly settings: S3FileStorageConfig,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  private sdk(): Promise<S3Sdk> {
    this.loaded ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]).then(([s3, storage]) => ({
      s3,
      Upload: storage.Upload,
      client: new s3.S3Client({
        region: this.settings.region,
        ...(this.settings.endpoint !== null && { endpoint: this.settings.endpoint }),
        forcePathStyle: this.settings.forcePathStyle,
        // Absent keys: the SDK's default chain (environment, shared files, web identity, instance or task role).
        ...(this.settings.credentials !== null && { credentials: this.settings.credentials }),
        requestHandler: { connectionTimeout: 5_000 },
      }),
    }));
    return this.loaded;
  }

  async write(key: string, source: FileSource, ...transforms: NodeJS.ReadWriteStream[]): Promise<void> {
    const objectKey = this.objectKeyOf(key);
    const { Upload, client } = await this.sdk();
    const body = new PassThrough();
    const upload = new Upload({
      client,
      params: { Bucket: this.settings.bucket, Key: objectKey, Body: body, ContentType: 'application/jsonl' },
      queueSize: 2,
      leavePartsOnError: false,
    });
    // A refusal of the bucket stops the source too (the pipe would otherwise wait on a reader that left).
    const sending = upload.done().catch((error: unknown) => {
      body.destroy(new StorageBroke(error));
      throw error;
    });
    const piping = (pipeline as (...streams: unknown[]) => Promise<void>)(source, ...transforms, body);
    const [piped, sent] = await Promise.allSettled([piping, sending]);
    if (piped.status === 'rejected') {
      if (piped.reason instanceof StorageBroke) throw this.failure('write', objectKey, piped.reason.reason);
      if (sent.status === 'fulfilled') await this.remove(key);
      else if (sent.reason !== piped.reason) {
        // The upload ended with S3's error rather than the source's: its abort failed, and parts may be kept until the bucket's lifecycle rule removes them.
        this.logger.warn({ storage: describeError(sent.reason), bucket: this.settings.bucket, key: objectKey }, 'file storage: an incomplete multipart upload could not be aborted');
      }
      throw piped.reason;
    }
    if (sent.status === 'rejected') throw this.failure('write', objectKey, sent.reason);
  }

  async open(key: string): Promise<Readable> {
    const objectKey = this.objectKeyOf(key);
    const { s3, client } = await this.sdk();
    try {
      const answer = await client.send(new s3.GetObjectCommand({ Bucket: this.settings.bucket, Key: objectKey }));
      return answer.Body as Readable;
    } catch (error) {
      if ((error as Error).name === 'NoSuchKey') throw missingContent(objectKey, error);
      throw this.failure('read', objectKey, error);
    }
  }

  async remove(key: string): Promise<void> {
    const objectKey = this.objectKeyOf(key);
    const { s3, client } = await this.sdk();
    try {
      await client.send(new s3.DeleteObjectCommand({ Bucket: this.settings.bucket, Key: objectKey }));
    } catch (error) {
      throw this.failure('remove', objectKey, error);
    }
  }

  async close(): Promise<void> {
    const loaded = this.loaded;
    this.loaded = undefined;
    if (loaded) (await loaded).client.destroy();
  }

  private objectKeyOf(key: string): string {
    return `${this.settings.prefix}${checkStorageKey(key)}`;
  }

  /** S3's error goes to the log (the operator's to fix: a bucket, a key, a policy); the client reads a 503. */
  private failure(operation: 'write' | 'read' | 'remove', objectKey: string, error: unknown): GatewayError {
    this.logger.warn({ storage: describeError(error), bucket: this.settings.bucket, key: objectKey, operation }, 'file storage failed');
    return new GatewayError('service_unavailable', 'The file storage is not answering; retry shortly', { cause: error });
  }
}

/** S3's error name, message and HTTP status, or a network error's code: what the log needs, nothing of the request's signature. */
function describeError(error: unknown): Record<string, unknown> {
  const failure = error as { name?: string; message?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  return {
    name: failure?.name,
    message: failure?.message,
    ...(failure?.code !== undefined && { code: failure.code }),
    ...(failure?.$metadata?.httpStatusCode !== undefined && { status: failure.$metadata.httpStatusCode }),
  };
}
