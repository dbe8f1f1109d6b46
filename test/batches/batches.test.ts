import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { readAccountMoney, sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';
import { batchRows, chatLine, driveBatch, jsonl, readJsonl, uploadBatchFile } from './batch-harness.js';

describe.each(testDatabases())('batches on $name', ({ url }) => {
  let gateway: SimulatedGateway;
  let clock: ManualClock;
  let client: OpenAI;

  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    gateway = await startSimulatedGateway({ databaseUrl: url, clock, credits: 100 });
    client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('runs a batch over openai-, anthropic- and gemini-wire models with the OpenAI SDK; a bad line lands in the error file; each line costs the live price and the books add up', async () => {
    const before = await readAccountMoney(gateway);
    const lines = [
      chatLine('a', 'sim/openai-model', 'Say hello from OpenAI'),
      chatLine('b', 'sim/anthropic-model', 'Say hello from Anthropic'),
      chatLine('c', 'sim/gemini-model', 'Say hello from Gemini'),
      // Well-formed for the file and the batch, refused by the endpoint's own decoder (as it would be live).
      { custom_id: 'bad', method: 'POST', url: '/v1/chat/completions', body: { model: 'sim/openai-model', messages: 'not a list' } },
    ];
    const file = await uploadBatchFile(client, jsonl(lines));
    expect(file).toMatchObject({ object: 'file', purpose: 'batch', filename: 'input.jsonl', status: 'processed' });
    expect(await client.files.retrieve(file.id)).toMatchObject({ id: file.id, bytes: Buffer.byteLength(jsonl(lines)) });

    const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { job: 'mix' } });
    expect(created).toMatchObject({ object: 'batch', status: 'validating', input_file_id: file.id, endpoint: '/v1/chat/completions', metadata: { job: 'mix' } });

    const done = await driveBatch(gateway.test, clock, client, created.id);
    expect(done.status).toBe('completed');
    expect(done.request_counts).toEqual({ total: 4, completed: 3, failed: 1 });
    expect(typeof done.in_progress_at).toBe('number');
    expect(typeof done.finalizing_at).toBe('number');
    expect(typeof done.completed_at).toBe('number');

    const output = await readJsonl(client, done.output_file_id);
    expect(output.map((line) => line.custom_id)).toEqual(['a', 'b', 'c']);
    for (const line of output) {
      expect(line.error).toBeNull();
      expect(line.response.status_code).toBe(200);
      expect(line.response.body.object).toBe('chat.completion');
      expect(line.response.body.choices[0].message.content.length).toBeGreaterThan(0);
      expect(line.id).toMatch(/^batch_req_/);
    }
    expect(output.map((line) => line.response.body.model)).toEqual(['sim/openai-model', 'sim/anthropic-model', 'sim/gemini-model']);
    const errors = await readJsonl(client, done.error_file_id);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ custom_id: 'bad', error: null, response: { status_code: 400 } });
    expect(errors[0].response.body.error).toMatchObject({ code: 'invalid_request', type: 'invalid_request_error' });

    // One request log row per line, tied to the batch; their costs are what the account was charged.
    const rows = await batchRows(gateway, created.id);
    expect(rows).toHaveLength(4);
    expect(rows.filter((row) => row.status === 'completed')).toHaveLength(3);
    expect(rows.map((row) => row.id).sort()).toEqual([...output, ...errors].map((line) => line.response.request_id).sort());
    const after = await readAccountMoney(gateway);
    const charged = rows.reduce((sum, row) => sum + row.cost, 0n);
    expect(charged).toBeGreaterThan(0n);
    expect(after.usage - before.usage).toBe(charged);
    expect(after.reserved).toBe(before.reserved);

    // The same request live costs exactly what its line cost.
    const live = await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', (lines[1] as { body: unknown }).body);
    expect(live.status).toBe(200);
    const liveId = live.headers.get('x-request-id')!;
    await gateway.test.context.requestLog.flush();
    const liveRow = await gateway.test.context.store.db.selectFrom('requests').select(['cost', 'batch_id']).where('id', '=', liveId).executeTakeFirstOrThrow();
    expect(liveRow.batch_id).toBeNull();
    expect(BigInt(liveRow.cost)).toBe(rows.find((row) => row.id === output[1].response.request_id)!.cost);
  });

  it('runs /v1/responses and /v1/messages batches in those endpoints’ own answer shapes', async () => {
    const responses = await uploadBatchFile(
      client,
      jsonl([{ custom_id: 'r1', method: 'POST', url: '/v1/responses', body: { model: 'sim/anthropic-model', input: 'Hi there', max_output_tokens: 40 } }]),
    );
    const responsesBatch = await client.batches.create({ input_file_id: responses.id, endpoint: '/v1/responses', completion_window: '24h' });
    const responsesDone = await driveBatch(gateway.test, clock, client, responsesBatch.id);
    expect(responsesDone).toMatchObject({ status: 'completed', request_counts: { total: 1, completed: 1, failed: 0 } });
    const [responseLine] = await readJsonl(client, responsesDone.output_file_id);
    expect(responseLine.response.body).toMatchObject({ object: 'response', status: 'completed', model: 'sim/anthropic-model' });

    const messages = await uploadBatchFile(
      client,
      jsonl([{ custom_id: 'm1', method: 'POST', url: '/v1/messages', body: { model: 'sim/gemini-model', max_tokens: 40, messages: [{ role: 'user', content: 'Hi' }] } }]),
    );
    const messagesBatch = await client.batches.create({ input_file_id: messages.id, endpoint: '/v1/messages' as never, completion_window: '24h' });
    const messagesDone = await driveBatch(gateway.test, clock, client, messagesBatch.id);
    const [messageLine] = await readJsonl(client, messagesDone.output_file_id);
    expect(messageLine.response.body).toMatchObject({ type: 'message', role: 'assistant', model: 'sim/gemini-model' });
    const rows = await batchRows(gateway, messagesBatch.id);
    expect(rows).toMatchObject([{ endpoint: '/messages', status: 'completed', model: 'sim/gemini-model' }]);
  });

  it('refuses a file whose JSONL is malformed, naming the line, and keeps nothing', async () => {
    const bad = jsonl([chatLine('a', 'sim/openai-model', 'ok'), '{not json', chatLine('c', 'sim/openai-model', 'ok')]);
    const error = await uploadBatchFile(client, bad).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain('Line 2: is not valid JSON');
    const noMethod = jsonl([chatLine('a', 'sim/openai-model', 'ok'), chatLine('b', 'sim/openai-model', 'ok'), { custom_id: 'c', url: '/v1/chat/completions', body: {} }]);
    const second = (await uploadBatchFile(client, noMethod).catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.BadRequestError>;
    expect(second.status).toBe(400);
    expect(second.message).toContain('Line 3: `method` must be "POST"');
    const purpose = await fetch(`${gateway.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${gateway.key}` }, body: formOf(jsonl([chatLine('a', 'sim/openai-model', 'x')]), 'fine-tune') });
    expect(purpose.status).toBe(400);
    expect(((await purpose.json()) as { error: { message: string } }).error.message).toContain('purpose');
  });

  it('fails a batch whose lines do not fit it, naming each line: url, duplicate custom_id, unknown model, stream', async () => {
    const file = await uploadBatchFile(
      client,
      jsonl([
        chatLine('a', 'sim/openai-model', 'ok'),
        { ...chatLine('b', 'sim/openai-model', 'ok'), url: '/v1/responses' },
        chatLine('a', 'sim/openai-model', 'again'),
        chatLine('d', 'nobody/no-such-model', 'ok'),
        chatLine('e', 'sim/openai-model', 'ok', { stream: true }),
      ]),
    );
    const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const done = await driveBatch(gateway.test, clock, client, created.id);
    expect(done.status).toBe('failed');
    expect(done.errors?.data?.map((error) => [error.line, error.code])).toEqual([
      [2, 'invalid_url'],
      [3, 'duplicate_custom_id'],
      [4, 'model_not_found'],
      [5, 'invalid_request'],
    ]);
    expect(done.errors?.data?.[1].message).toContain('Line 3');
    expect(await batchRows(gateway, created.id)).toEqual([]);
  });

  it('keeps files and batches to their account: another account gets 404 for each, and lists only its own', async () => {
    const other = await gateway.test.createAccount({ credits: 10 });
    const otherClient = new OpenAI({ apiKey: other.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const file = await uploadBatchFile(client, jsonl([chatLine('a', 'sim/openai-model', 'mine')]));
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    for (const attempt of [
      () => otherClient.files.retrieve(file.id),
      () => otherClient.files.content(file.id),
      () => otherClient.files.delete(file.id),
      () => otherClient.batches.retrieve(batch.id),
      () => otherClient.batches.cancel(batch.id),
      () => otherClient.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    ]) {
      const error = (await attempt().then(() => undefined, (caught: unknown) => caught)) as { status?: number } | undefined;
      expect(error?.status).toBe(404);
    }
    const page = await otherClient.batches.list();
    expect(page.data).toEqual([]);
    expect((await client.batches.list({ limit: 100 })).data.map((listed) => listed.id)).toContain(batch.id);
    await driveBatch(gateway.test, clock, client, batch.id);
    // The owner deletes its file; then it is gone for the owner too.
    expect(await client.files.delete(file.id)).toMatchObject({ id: file.id, deleted: true });
    expect(((await client.files.retrieve(file.id).catch((caught: unknown) => caught)) as { status: number }).status).toBe(404);
  });

  it('lists files as OpenAI does: newest first, pages by after and limit, order and purpose, only the account\'s own', async () => {
    const other = await gateway.test.createAccount({ credits: 10 });
    const otherClient = new OpenAI({ apiKey: other.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await uploadBatchFile(otherClient, jsonl([chatLine('a', 'sim/openai-model', 'theirs')]));
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) ids.push((await uploadBatchFile(client, jsonl([chatLine('a', 'sim/openai-model', `list ${index}`)]), `list-${index}.jsonl`)).id);
    const first = (await (await sendJson(gateway, gateway.key, 'GET', '/v1/files?limit=2')).json()) as { object: string; data: Array<{ id: string; object: string }>; has_more: boolean; first_id: string; last_id: string };
    expect(first).toMatchObject({ object: 'list', has_more: true, first_id: ids[2], last_id: ids[1] });
    expect(first.data.map((file) => file.id)).toEqual([ids[2], ids[1]]);
    // The SDK walks every page by `after`: the account's files, never the other account's.
    const all: string[] = [];
    for await (const file of client.files.list({ limit: 2 })) all.push(file.id);
    expect(all.slice(0, 3)).toEqual([ids[2], ids[1], ids[0]]);
    expect(all).toEqual([...all].sort().reverse());
    const theirs = (await otherClient.files.list()).data;
    expect(theirs).toHaveLength(1);
    expect(all).not.toContain(theirs[0].id);
    const ascending = (await (await sendJson(gateway, gateway.key, 'GET', `/v1/files?order=asc&after=${ids[0]}&purpose=batch`)).json()) as { data: Array<{ id: string; purpose: string }> };
    expect(ascending.data.map((file) => file.id)).toEqual([ids[1], ids[2]]);
  });

  it('pages the batch list newest first with after and limit', async () => {
    const file = await uploadBatchFile(client, jsonl([chatLine('a', 'sim/openai-model', 'x')]));
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) ids.push((await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })).id);
    const first = await sendJson(gateway, gateway.key, 'GET', '/v1/batches?limit=2');
    const firstPage = (await first.json()) as { data: Array<{ id: string }>; has_more: boolean; last_id: string };
    expect(firstPage.data.map((batch) => batch.id)).toEqual([ids[2], ids[1]]);
    expect(firstPage.has_more).toBe(true);
    const second = (await (await sendJson(gateway, gateway.key, 'GET', `/v1/batches?limit=2&after=${firstPage.last_id}`)).json()) as { data: Array<{ id: string }> };
    expect(second.data[0].id).toBe(ids[0]);
    for (const id of ids) await client.batches.cancel(id);
    await gateway.test.context.tasks.runOnce();
  });
});

function formOf(text: string, purpose: string): FormData {
  const form = new FormData();
  form.append('purpose', purpose);
  form.append('file', new Blob([text]), 'input.jsonl');
  return form;
}
