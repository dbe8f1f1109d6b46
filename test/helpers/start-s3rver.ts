import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** s3rver's one account (its README): requests signed with another access key id are refused (`InvalidAccessKeyId`). */
export const s3rverKeys = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface StartedS3rver {
  /** http://127.0.0.1:PORT */
  endpoint: string;
  bucket: string;
  /** Every request s3rver received: method and URL (path and query), in order. */
  requests: Array<{ method: string; url: string }>;
  /** The keys of the objects in the bucket under `prefix`. */
  keys(prefix?: string): Promise<string[]>;
  /** An object's bytes as text. */
  read(key: string): Promise<string>;
  remove(key: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * s3rver, an S3-compatible server, on 127.0.0.1 at a free port with its data in a temporary
 * directory and `bucket` made; the test reads the bucket back with the AWS SDK's own client.
 */
export async function startS3rver(bucket = 'switchyard-files'): Promise<StartedS3rver> {
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const address = await server.run();
  const requests: Array<{ method: string; url: string }> = [];
  server.httpServer!.prependListener('request', (request) => requests.push({ method: request.method ?? '', url: request.url ?? '' }));
  const endpoint = `http://127.0.0.1:${address.port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: s3rverKeys });
  let closed = false;
  return {
    endpoint,
    bucket,
    requests,
    async keys(prefix = '') {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
      return (listed.Contents ?? []).map((object) => object.Key!).sort();
    },
    async read(key) {
      const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return answer.Body!.transformToString();
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    async close() {
      if (closed) return;
      closed = true;
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
