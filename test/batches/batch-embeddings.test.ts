import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { readAccountMoney, sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { embeddingsCatalogYaml } from '../embeddings/embeddings-gateway.js';
import { batchRows, driveBatch, jsonl, readJsonl, uploadBatchFile } from './batch-harness.js';

const embeddingLine = (customId: string, body: Record<string, unknown>) => ({ custom_id: customId, method: 'POST', url: '/v1/embeddings', body });

describe('embeddings batches', () => {
  let gateway: SimulatedGateway;
  let clock: ManualClock;
  let client: OpenAI;

  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    gateway = await startSimulatedGateway({ clock, credits: 100, catalogYaml: embeddingsCatalogYaml });
    client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('runs /v1/embeddings lines through the live embeddings call: OpenAI lists in the output file, the live price per line, a bad line in the error file', async () => {
    const before = await readAccountMoney(gateway);
    const body = { model: 'sim/embed-small', input: ['the first text', 'and a second one'], encoding_format: 'float' };
    const file = await uploadBatchFile(
      client,
      jsonl([embeddingLine('e1', body), embeddingLine('e2', { model: 'sim/embed-ada', input: 'one more', encoding_format: 'float' }), embeddingLine('bad', { model: 'sim/embed-small' })]),
    );
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/embeddings', completion_window: '24h' });
    const done = await driveBatch(gateway.test, clock, client, batch.id);
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 3, completed: 2, failed: 1 } });
    const output = await readJsonl(client, done.output_file_id);
    expect(output.map((line) => line.custom_id)).toEqual(['e1', 'e2']);
    expect(output[0].response.body).toMatchObject({ object: 'list', model: 'sim/embed-small' });
    expect(output[0].response.body.data).toHaveLength(2);
    expect(output[0].response.body.data[0].embedding).toHaveLength(1536);
    const errors = await readJsonl(client, done.error_file_id);
    expect(errors).toMatchObject([{ custom_id: 'bad', response: { status_code: 400 } }]);

    const rows = await batchRows(gateway, batch.id);
    expect(rows.map((row) => row.endpoint)).toEqual(['/embeddings', '/embeddings', '/embeddings']);
    const after = await readAccountMoney(gateway);
    expect(after.usage - before.usage).toBe(rows.reduce((sum, row) => sum + row.cost, 0n));
    expect(after.reserved).toBe(before.reserved);

    const live = await sendJson(gateway, gateway.key, 'POST', '/v1/embeddings', body);
    expect(live.status).toBe(200);
    await gateway.test.context.requestLog.flush();
    const liveRow = await gateway.test.context.store.db.selectFrom('requests').select('cost').where('id', '=', live.headers.get('x-request-id')!).executeTakeFirstOrThrow();
    expect(BigInt(liveRow.cost)).toBe(rows.find((row) => row.id === output[0].response.request_id)!.cost);
  });

  it('fails an embeddings batch that names a chat model, naming the line', async () => {
    const file = await uploadBatchFile(client, jsonl([embeddingLine('c', { model: 'sim/chat', input: 'x' })]));
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/embeddings', completion_window: '24h' });
    const done = await driveBatch(gateway.test, clock, client, batch.id);
    expect(done.status).toBe('failed');
    expect(done.errors?.data?.[0]).toMatchObject({ line: 1, code: 'model_not_found', param: 'body.model' });
    expect(done.errors?.data?.[0].message).toContain('does not serve /v1/embeddings');
  });
});
