import OpenAI, { APIError, toFile } from 'openai';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { s3rverKeys, startS3rver, type StartedS3rver } from '../helpers/start-s3rver.js';
import { chatLine, driveBatch, jsonl, readJsonl, uploadBatchFile } from './batch-harness.js';

const prefix = 'tenants/switchyard/';

/** The simulated catalog with its files in s3rver's bucket, configured in the file as an operator would. */
function s3CatalogYaml(s3: StartedS3rver, keys = s3rverKeys) {
  return (simulatorUrl: string) =>
    `${simulatedCatalogYaml(simulatorUrl)}files:
  s3:
    bucket: ${s3.bucket}
    endpoint: ${s3.endpoint}
    region: us-east-1
    prefix: /tenants/switchyard
    force_path_style: true
    access_key_id: ${keys.accessKeyId}
    secret_access_key: ${keys.secretAccessKey}
`;
}

/** Where files would be on local disk for this process's in-memory database (`batch-settings.ts`). */
const localFilesDir = join(tmpdir(), `switchyard-files-${process.pid}`);

async function fileRows(gateway: SimulatedGateway) {
  return gateway.test.context.store.db.selectFrom('files').select(['id', 'storage_key']).execute();
}

/** A JSONL file of about `bytes` bytes, each line a valid chat request padded to ~1 KiB. */
function largeFile(bytes: number): string[] {
  const lines: string[] = [];
  for (let size = 0, index = 0; size < bytes; index++) {
    const line = JSON.stringify(chatLine(`row-${index}`, 'sim/openai-model', `Say ${index} ${'x'.repeat(950)}`));
    lines.push(line);
    size += line.length + 1;
  }
  return lines;
}

describe('files in an S3-compatible bucket (s3rver)', () => {
  let s3: StartedS3rver;
  let gateway: SimulatedGateway;
  let clock: ManualClock;
  let client: OpenAI;

  beforeAll(async () => {
    s3 = await startS3rver();
    clock = new ManualClock(Date.now());
    gateway = await startSimulatedGateway({ clock, credits: 100, catalogYaml: s3CatalogYaml(s3) });
    client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1` });
  });
  afterAll(async () => {
    await gateway?.close();
    await s3?.close();
  });

  it('uploads a file into the bucket under the prefix, retrieves it, streams its content back and deletes the object with the file', async () => {
    const text = jsonl([chatLine('a', 'sim/openai-model', 'Hello'), chatLine('b', 'sim/anthropic-model', 'Bonjour')]);
    const file = await uploadBatchFile(client, text, 'greetings.jsonl');
    expect(file).toMatchObject({ object: 'file', purpose: 'batch', filename: 'greetings.jsonl', bytes: Buffer.byteLength(text) });

    const key = `${prefix}${file.id}.jsonl`;
    expect(await s3.keys(prefix)).toContain(key);
    expect(await s3.read(key)).toBe(text);
    expect(existsSync(join(localFilesDir, `${file.id}.jsonl`))).toBe(false);

    expect(await client.files.retrieve(file.id)).toMatchObject({ id: file.id, bytes: Buffer.byteLength(text) });
    const content = await client.files.content(file.id);
    expect(content.headers.get('content-type')).toBe('application/jsonl');
    expect(await content.text()).toBe(text);

    expect(await client.files.delete(file.id)).toEqual({ id: file.id, object: 'file', deleted: true });
    expect(await s3.keys(prefix)).not.toContain(key);
    await expect(client.files.retrieve(file.id)).rejects.toMatchObject({ status: 404 });
  });

  it('refuses a file with a bad line, naming the line, and leaves no object in the bucket and no row', async () => {
    const before = await s3.keys();
    const text = jsonl([chatLine('a', 'sim/openai-model', 'Hello'), '{"custom_id": "b", "method": "GET"', chatLine('c', 'sim/openai-model', 'Hi')]);
    const refusal = await uploadBatchFile(client, text).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(APIError);
    expect(refusal).toMatchObject({ status: 400, code: 'invalid_request' });
    expect((refusal as APIError).message).toContain('Line 2: is not valid JSON');
    expect(await s3.keys()).toEqual(before);
    expect(await fileRows(gateway)).toEqual([]);
  });

  it('streams a file larger than one part as a multipart upload, and reads it back whole', async () => {
    const text = jsonl(largeFile(6 * 1024 * 1024));
    const file = await client.files.create({ file: await toFile(Buffer.from(text), 'large.jsonl'), purpose: 'batch' });
    const key = `${prefix}${file.id}.jsonl`;
    const sent = s3.requests.filter((request) => request.url.includes(file.id));
    // CreateMultipartUpload, UploadPart twice (5 MiB and the rest), CompleteMultipartUpload: never one PutObject of the whole file.
    expect(sent.filter((request) => request.method === 'POST' && /[?&]uploads(=|&|$)/.test(request.url))).toHaveLength(1);
    expect(sent.filter((request) => request.method === 'PUT' && /[?&]partNumber=/.test(request.url))).toHaveLength(2);
    expect(sent.filter((request) => request.method === 'POST' && /[?&]uploadId=/.test(request.url))).toHaveLength(1);
    expect(await s3.read(key)).toBe(text);
    expect(await (await client.files.content(file.id)).text()).toBe(text);
    await client.files.delete(file.id);
    expect(await s3.keys(prefix)).not.toContain(key);
  });

  it('aborts the multipart upload of a large file whose last line is bad: no object is completed', async () => {
    const before = await s3.keys();
    const lines = largeFile(6 * 1024 * 1024);
    const text = jsonl([...lines, '{"custom_id": "last", "method": "POST", "url": "/v1/chat/completions", "body": []}']);
    const refusal = await client.files.create({ file: await toFile(Buffer.from(text), 'large-bad.jsonl'), purpose: 'batch' }).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ status: 400, code: 'invalid_request' });
    expect((refusal as APIError).message).toContain(`Line ${lines.length + 1}: \`body\` must be a JSON object`);
    const initiated = s3.requests.filter((request) => request.method === 'POST' && /[?&]uploads(=|&|$)/.test(request.url)).at(-1)!;
    const objectPath = initiated.url.split('?')[0];
    // The gateway sent AbortMultipartUpload for it (s3rver itself does not implement it and answers 405) and never completed it.
    const forObject = s3.requests.filter((request) => request.url.split('?')[0] === objectPath);
    expect(forObject.some((request) => request.method === 'DELETE' && /[?&]uploadId=/.test(request.url))).toBe(true);
    expect(forObject.some((request) => request.method === 'POST' && /[?&]uploadId=/.test(request.url))).toBe(false);
    expect(await s3.keys()).toEqual(before);
    expect(await fileRows(gateway)).toEqual([]);
  });

  it('runs a batch end to end from the bucket: input read from S3, output and error files written to S3', async () => {
    const lines = [
      chatLine('a', 'sim/openai-model', 'Say hello from OpenAI'),
      chatLine('b', 'sim/gemini-model', 'Say hello from Gemini'),
      { custom_id: 'bad', method: 'POST', url: '/v1/chat/completions', body: { model: 'sim/openai-model', messages: 'not a list' } },
    ];
    const input = await uploadBatchFile(client, jsonl(lines));
    const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const done = await driveBatch(gateway.test, clock, client, created.id);
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 3, completed: 2, failed: 1 } });

    const keys = await s3.keys(prefix);
    expect(keys).toEqual(expect.arrayContaining([input.id, done.output_file_id, done.error_file_id].map((id) => `${prefix}${id}.jsonl`)));
    for (const id of [done.output_file_id, done.error_file_id]) expect(existsSync(join(localFilesDir, `${id}.jsonl`))).toBe(false);

    const output = await readJsonl(client, done.output_file_id);
    expect(output.map((line) => line.custom_id)).toEqual(['a', 'b']);
    expect(output.every((line) => line.response.status_code === 200 && line.response.body.object === 'chat.completion')).toBe(true);
    const errors = await readJsonl(client, done.error_file_id);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ custom_id: 'bad', response: { status_code: 400 } });
    // What the SDK read is what the bucket holds.
    expect(await s3.read(`${prefix}${done.output_file_id}.jsonl`)).toBe(jsonl(output));
  });

  it('answers 500 in the envelope when a row names an object that left the bucket behind its back', async () => {
    const file = await uploadBatchFile(client, jsonl([chatLine('a', 'sim/openai-model', 'Hello')]));
    await s3.remove(`${prefix}${file.id}.jsonl`);
    const response = await fetch(`${gateway.url}/v1/files/${file.id}/content`, { headers: { authorization: `Bearer ${gateway.key}` } });
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ code: 'internal_error', message: "The file's content is missing from storage" });
    expect(JSON.stringify(body)).not.toMatch(/NoSuchKey|at .*\.js/);
  });
});

describe('files in S3: refusals and failures of the bucket', () => {
  let s3: StartedS3rver;

  beforeAll(async () => {
    s3 = await startS3rver();
  });
  afterAll(async () => {
    await s3?.close();
  });

  it('answers 503 in the envelope when the bucket refuses the credentials, and keeps no row', async () => {
    const gateway = await startSimulatedGateway({ catalogYaml: s3CatalogYaml(s3, { accessKeyId: 'NOT-A-KEY', secretAccessKey: 'wrong' }) });
    try {
      const client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1` });
      const refusal = await uploadBatchFile(client, jsonl([chatLine('a', 'sim/openai-model', 'Hello')])).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(APIError);
      expect(refusal).toMatchObject({ status: 503, code: 'service_unavailable', error: { message: 'The file storage is not answering; retry shortly' } });
      expect(JSON.stringify((refusal as APIError).error)).not.toMatch(/InvalidAccessKeyId|NOT-A-KEY|stack/);
      expect(await fileRows(gateway)).toEqual([]);
      expect(await s3.keys()).toEqual([]);
    } finally {
      await gateway.close();
    }
  });

  it('refuses a file over the size limit with 413 before the bucket keeps any of it', async () => {
    const gateway = await startSimulatedGateway({
      catalogYaml: s3CatalogYaml(s3),
      configure: (config) => {
        config.server.batches!.maxFileBytes = 1024 * 1024;
      },
    });
    try {
      const client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1` });
      const sentBefore = s3.requests.length;
      const refusal = await client.files.create({ file: await toFile(Buffer.from(jsonl(largeFile(2 * 1024 * 1024))), 'big.jsonl'), purpose: 'batch' }).catch((error: unknown) => error);
      expect(refusal).toMatchObject({ status: 413, code: 'payload_too_large', error: { message: 'The file is larger than the limit of 1048576 bytes' } });
      // The whole file fits one part: the upload never sent it (no PutObject), nor began a multipart upload.
      expect(s3.requests.slice(sentBefore).filter((request) => request.method === 'PUT' || request.method === 'POST')).toEqual([]);
      expect(await s3.keys()).toEqual([]);
      expect(await fileRows(gateway)).toEqual([]);
    } finally {
      await gateway.close();
    }
  });

  it('answers 503 for content while the bucket is down, and a delete still removes the file (its bytes logged as left behind)', async () => {
    const gateway = await startSimulatedGateway({ catalogYaml: s3CatalogYaml(s3) });
    try {
      const client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1` });
      const file = await uploadBatchFile(client, jsonl([chatLine('a', 'sim/openai-model', 'Hello')]));
      await s3.close();
      expect(await client.files.retrieve(file.id)).toMatchObject({ id: file.id });
      const refusal = await client.files.content(file.id).catch((error: unknown) => error);
      expect(refusal).toMatchObject({ status: 503, code: 'service_unavailable' });
      const upload = await uploadBatchFile(client, jsonl([chatLine('b', 'sim/openai-model', 'Hello')])).catch((error: unknown) => error);
      expect(upload).toMatchObject({ status: 503, code: 'service_unavailable' });
      expect(await client.files.delete(file.id)).toEqual({ id: file.id, object: 'file', deleted: true });
      expect(await fileRows(gateway)).toEqual([]);
    } finally {
      await gateway.close();
    }
  });
});
