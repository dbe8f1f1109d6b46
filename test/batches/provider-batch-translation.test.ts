import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { readAccountMoney, simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';
import { chatLine, driveBatch, jsonl, readJsonl, uploadBatchFile } from './batch-harness.js';

/** The simulated catalog with `batch_discount: 0.5` on the anthropic-wire model's endpoint (and prices whose half rounds). */
function discountedCatalog(simulatorUrl: string): string {
  const yaml = simulatedCatalogYaml(simulatorUrl);
  const before = '        model: claude-sim\n        pricing: {prompt: 1, completion: 2}\n';
  if (!yaml.includes(before)) throw new Error('the simulated catalog changed: update this test');
  return yaml.replace(before, '        model: claude-sim\n        pricing: {prompt: 3, completion: 15, batch_discount: 0.5}\n');
}

function responsesLine(customId: string, model: string, input: string) {
  return { custom_id: customId, method: 'POST', url: '/v1/responses', body: { model, input, max_output_tokens: 40 } };
}

const ceilDiv = (numerator: bigint, denominator: bigint) => (numerator + denominator - 1n) / denominator;
/** The live text rule at $3 / $15 per million tokens, in nano-USD, rounded up once, then × 0.5 rounded up once. */
const discountedCost = (prompt: number, completion: number) => ceilDiv(ceilDiv(BigInt(prompt) * 3_000_000_000n + BigInt(completion) * 15_000_000_000n, 1_000_000n) * 500_000n, 1_000_000n);

const anthropicHeaders = { 'x-api-key': 'sim-key', 'anthropic-version': '2023-06-01' };

/** The simulator's Message Batches, newest first, with their results when they ended. */
async function simulatorMessageBatches(gateway: SimulatedGateway) {
  const listed = (await (await fetch(`${gateway.simulator.url}/anthropic/v1/messages/batches`, { headers: anthropicHeaders })).json()) as {
    data: Array<{ id: string; processing_status: string; cancel_initiated_at: string | null; request_counts: Record<string, number>; results_url: string | null }>;
  };
  return Promise.all(
    listed.data.map(async (batch) => {
      const text = batch.results_url ? await (await fetch(batch.results_url, { headers: anthropicHeaders })).text() : '';
      const results = text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as { custom_id: string; result: { type: string } });
      return { ...batch, results };
    }),
  );
}

/** The batch's request log rows and its ledger charges, straight from the store. */
async function booksOf(gateway: SimulatedGateway, batchId: string) {
  await gateway.test.context.requestLog.flush();
  const { db } = gateway.test.context.store;
  const rows = await db.selectFrom('requests').selectAll().where('batch_id', '=', batchId).orderBy('id').execute();
  const ids = rows.map((row) => row.id);
  const charges = ids.length === 0 ? [] : await db.selectFrom('ledger_entries').select(['request_id', 'amount']).where('kind', '=', 'charge').where('request_id', 'in', ids).execute();
  const charged = new Map(charges.map((entry) => [entry.request_id!, BigInt(entry.amount) < 0n ? -BigInt(entry.amount) : BigInt(entry.amount)]));
  return { rows, byId: new Map(rows.map((row) => [row.id, row])), charged };
}

describe.each(testDatabases())('provider batches for every text endpoint on $name', ({ url }) => {
  let gateway: SimulatedGateway;
  let clock: ManualClock;
  let client: OpenAI;

  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    gateway = await startSimulatedGateway({ databaseUrl: url, clock, credits: 100, simulator: { apiKey: 'sim-key', batchDurationMs: 100 }, catalogYaml: discountedCatalog });
    client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('sends /v1/chat/completions lines for an anthropic-wire model through Message Batches and answers Chat Completions objects, each charged list cost × 0.5; ledger = request log = usage', async () => {
    const before = await readAccountMoney(gateway);
    const batchesBefore = (await simulatorMessageBatches(gateway)).length;
    const lines = [chatLine('c-1', 'sim/anthropic-model', 'Say hello from a chat batch'), chatLine('o-1', 'sim/openai-model', 'Say hello from OpenAI'), chatLine('c-2', 'sim/anthropic-model', 'Tell me about lighthouses and the sea')];
    const file = await uploadBatchFile(client, jsonl(lines));
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const done = await driveBatch(gateway.test, clock, client, batch.id);
    expect(done.status).toBe('completed');
    expect(done.request_counts).toEqual({ total: 3, completed: 3, failed: 0 });

    // The anthropic lines went to the simulator's Message Batches, as one batch, translated into Messages bodies.
    const sent = await simulatorMessageBatches(gateway);
    expect(sent).toHaveLength(batchesBefore + 1);
    expect(sent[0].results.map((result) => [result.custom_id, result.result.type])).toEqual([
      ['line-1', 'succeeded'],
      ['line-3', 'succeeded'],
    ]);
    expect((sent[0].results[0].result as unknown as { message: { type: string } }).message.type).toBe('message');

    const output = await readJsonl(client, done.output_file_id);
    expect(output.map((line) => line.custom_id)).toEqual(['c-1', 'o-1', 'c-2']);
    const books = await booksOf(gateway, batch.id);
    expect(books.rows).toHaveLength(3);
    let total = 0n;
    for (const line of output) {
      expect(line.error).toBeNull();
      expect(line.response.status_code).toBe(200);
      const body = line.response.body;
      // The body a live /v1/chat/completions request gets: the gateway's request id, the catalog model id.
      expect(body).toMatchObject({ object: 'chat.completion', id: line.response.request_id, model: line.custom_id.startsWith('c') ? 'sim/anthropic-model' : 'sim/openai-model' });
      expect(body.choices[0].message.role).toBe('assistant');
      expect(typeof body.choices[0].message.content).toBe('string');
      const row = books.byId.get(line.response.request_id)!;
      expect(row.status).toBe('completed');
      expect(row.endpoint).toBe('/chat/completions');
      const cost = BigInt(row.cost);
      expect(books.charged.get(row.id)).toBe(cost);
      total += cost;
      if (line.custom_id.startsWith('c')) {
        expect(row.provider).toBe('sim-anthropic');
        expect(Number(row.prompt_tokens)).toBe(body.usage.prompt_tokens);
        expect(Number(row.completion_tokens)).toBe(body.usage.completion_tokens);
        expect(cost).toBe(discountedCost(Number(row.prompt_tokens), Number(row.completion_tokens)));
        expect(cost).toBeGreaterThan(0n);
      } else {
        expect(row.provider).toBe('sim-openai');
        expect(cost).toBe(ceilDiv(BigInt(row.prompt_tokens) * 1_000_000_000n + BigInt(row.completion_tokens) * 2_000_000_000n, 1_000_000n));
      }
    }
    const after = await readAccountMoney(gateway);
    expect(after.usage - before.usage).toBe(total);
    expect(after.reserved).toBe(before.reserved);
  });

  it('sends /v1/responses lines likewise and answers Response objects, each charged list cost × 0.5', async () => {
    const before = await readAccountMoney(gateway);
    const batchesBefore = (await simulatorMessageBatches(gateway)).length;
    const file = await uploadBatchFile(client, jsonl([responsesLine('r-1', 'sim/anthropic-model', 'Say hello from a responses batch'), responsesLine('r-2', 'sim/anthropic-model', 'Name three rivers')]));
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/responses', completion_window: '24h' });
    const done = await driveBatch(gateway.test, clock, client, batch.id);
    expect(done.status).toBe('completed');
    expect(done.request_counts).toEqual({ total: 2, completed: 2, failed: 0 });

    const sent = await simulatorMessageBatches(gateway);
    expect(sent).toHaveLength(batchesBefore + 1);
    expect(sent[0].results.map((result) => [result.custom_id, result.result.type])).toEqual([
      ['line-1', 'succeeded'],
      ['line-2', 'succeeded'],
    ]);

    const output = await readJsonl(client, done.output_file_id);
    const books = await booksOf(gateway, batch.id);
    let total = 0n;
    for (const line of output) {
      const body = line.response.body;
      expect(body).toMatchObject({ object: 'response', id: line.response.request_id, model: 'sim/anthropic-model', status: 'completed' });
      expect(body.output.some((item: { type: string }) => item.type === 'message')).toBe(true);
      const row = books.byId.get(line.response.request_id)!;
      expect(row.endpoint).toBe('/responses');
      expect(Number(row.prompt_tokens)).toBe(body.usage.input_tokens);
      expect(Number(row.completion_tokens)).toBe(body.usage.output_tokens);
      const cost = BigInt(row.cost);
      expect(cost).toBe(discountedCost(Number(row.prompt_tokens), Number(row.completion_tokens)));
      expect(books.charged.get(row.id)).toBe(cost);
      total += cost;
    }
    const after = await readAccountMoney(gateway);
    expect(after.usage - before.usage).toBe(total);
    expect(after.reserved).toBe(before.reserved);
  });

  it('still sends lines stored as executor `anthropic` (before the batch adapters) to the provider batch', async () => {
    const before = await readAccountMoney(gateway);
    const line = { custom_id: 'legacy', method: 'POST', url: '/v1/messages', body: { model: 'sim/anthropic-model', max_tokens: 40, messages: [{ role: 'user', content: 'From an older gateway' }] } };
    const file = await uploadBatchFile(client, jsonl([line]));
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/messages' as never, completion_window: '24h' });
    // The batch as the previous version validated it: its line stored with executor `anthropic`.
    const { insertBatchLines } = await import('../../src/batches/db/batch-lines.js');
    const { startBatch } = await import('../../src/batches/db/batches.js');
    const { db } = gateway.test.context.store;
    await insertBatchLines(db, batch.id, [{ lineNo: 1, customId: 'legacy', model: 'sim/anthropic-model', body: JSON.stringify(line.body), executor: 'anthropic' }]);
    await startBatch(db, batch.id, 1, new Date(clock.now()).toISOString());
    const done = await driveBatch(gateway.test, clock, client, batch.id);
    expect(done.status).toBe('completed');
    const stored = await db.selectFrom('batch_lines').selectAll().where('batch_id', '=', batch.id).executeTakeFirstOrThrow();
    expect(stored.executor).toBe('anthropic');
    expect(stored.provider_batch_id).toMatch(/^msgbatch_/);
    const [output] = await readJsonl(client, done.output_file_id);
    expect(output.response.body).toMatchObject({ type: 'message', model: 'sim/anthropic-model' });
    const books = await booksOf(gateway, batch.id);
    const row = books.rows[0]!;
    expect(BigInt(row.cost)).toBe(discountedCost(Number(row.prompt_tokens), Number(row.completion_tokens)));
    expect((await readAccountMoney(gateway)).usage - before.usage).toBe(BigInt(row.cost));
  });

  it('fails validation, naming the line, when a line bound for a provider batch is one its live endpoint refuses', async () => {
    const bad = chatLine('bad', 'sim/anthropic-model', 'x', { messages: 'not a list' });
    const file = await uploadBatchFile(client, jsonl([chatLine('good', 'sim/anthropic-model', 'Hello'), bad]));
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const done = await driveBatch(gateway.test, clock, client, batch.id);
    expect(done.status).toBe('failed');
    expect(done.errors?.data).toHaveLength(1);
    expect(done.errors?.data?.[0]).toMatchObject({ line: 2 });
    expect(done.errors?.data?.[0].message).toContain('Line 2');
  });

  it('on cancel after the provider ran its batch, charges the lines it answered (the provider bills them) and ends cancelled with the counts', async () => {
    const before = await readAccountMoney(gateway);
    const batchesBefore = (await simulatorMessageBatches(gateway)).length;
    const file = await uploadBatchFile(client, jsonl([chatLine('p-1', 'sim/anthropic-model', 'One'), chatLine('p-2', 'sim/anthropic-model', 'Two')]));
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    clock.advance(1_000);
    await gateway.test.context.tasks.runOnce();
    const lines = await gateway.test.context.store.db.selectFrom('batch_lines').selectAll().where('batch_id', '=', batch.id).orderBy('line_no').execute();
    expect(lines.map((line) => [line.status, line.executor])).toEqual([
      ['running', 'provider'],
      ['running', 'provider'],
    ]);
    // The simulator's batch is due after 100 ms: by the cancel, it has run its requests.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await client.batches.cancel(batch.id)).status).toBe('cancelling');
    const done = await driveBatch(gateway.test, clock, client, batch.id);
    expect(done.status).toBe('cancelled');
    expect(done.request_counts).toEqual({ total: 2, completed: 2, failed: 0 });

    const sent = await simulatorMessageBatches(gateway);
    expect(sent).toHaveLength(batchesBefore + 1);
    expect(sent[0].results.map((result) => result.result.type)).toEqual(['succeeded', 'succeeded']);
    const output = await readJsonl(client, done.output_file_id);
    expect(output.map((line) => line.custom_id)).toEqual(['p-1', 'p-2']);
    const books = await booksOf(gateway, batch.id);
    let total = 0n;
    for (const row of books.rows) {
      expect(row.status).toBe('completed');
      expect(BigInt(row.cost)).toBe(discountedCost(Number(row.prompt_tokens), Number(row.completion_tokens)));
      total += BigInt(row.cost);
    }
    const after = await readAccountMoney(gateway);
    expect(after.usage - before.usage).toBe(total);
    expect(after.reserved).toBe(before.reserved);
  });
});

describe.each(testDatabases())('cancelling a batch with lines in a provider batch on $name', ({ url }) => {
  let gateway: SimulatedGateway;
  let clock: ManualClock;
  let client: OpenAI;

  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    // The simulator's batches take an hour: the cancel always finds them running.
    gateway = await startSimulatedGateway({ databaseUrl: url, clock, credits: 100, simulator: { apiKey: 'sim-key', batchDurationMs: 3_600_000 }, catalogYaml: discountedCatalog });
    client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('cancels the provider batch at the provider, charges the lines the engine ran and none of the canceled ones; the batch ends cancelled with its counts', async () => {
    const before = await readAccountMoney(gateway);
    const lines = [chatLine('p-1', 'sim/anthropic-model', 'One'), chatLine('e-1', 'sim/openai-model', 'Two'), chatLine('p-2', 'sim/anthropic-model', 'Three')];
    const file = await uploadBatchFile(client, jsonl(lines));
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    clock.advance(1_000);
    await gateway.test.context.tasks.runOnce();
    const running = await gateway.test.context.store.db.selectFrom('batch_lines').selectAll().where('batch_id', '=', batch.id).orderBy('line_no').execute();
    expect(running.map((line) => [line.status, line.executor])).toEqual([
      ['running', 'provider'],
      ['completed', 'engine'],
      ['running', 'provider'],
    ]);
    const providerBatchId = running[0].provider_batch_id!;
    expect(running[2].provider_batch_id).toBe(providerBatchId);
    expect((await readAccountMoney(gateway)).reserved).toBeGreaterThan(before.reserved);

    expect((await client.batches.cancel(batch.id)).status).toBe('cancelling');
    const done = await driveBatch(gateway.test, clock, client, batch.id);
    expect(done.status).toBe('cancelled');
    expect(done.request_counts).toEqual({ total: 3, completed: 1, failed: 2 });

    // The gateway cancelled the provider's batch: it ended with both requests canceled, none run.
    const [sent] = await simulatorMessageBatches(gateway);
    expect(sent.id).toBe(providerBatchId);
    expect(sent.processing_status).toBe('ended');
    expect(sent.cancel_initiated_at).not.toBeNull();
    expect(sent.request_counts).toMatchObject({ succeeded: 0, canceled: 2 });

    const errors = await readJsonl(client, done.error_file_id);
    expect(errors.map((line) => [line.custom_id, line.response, line.error?.code])).toEqual([
      ['p-1', null, 'batch_cancelled'],
      ['p-2', null, 'batch_cancelled'],
    ]);
    const output = await readJsonl(client, done.output_file_id);
    expect(output.map((line) => line.custom_id)).toEqual(['e-1']);

    const books = await booksOf(gateway, batch.id);
    expect(books.rows).toHaveLength(3);
    const engineRow = books.byId.get(output[0].response.request_id)!;
    expect(BigInt(engineRow.cost)).toBeGreaterThan(0n);
    for (const row of books.rows.filter((row) => row.id !== engineRow.id)) {
      expect(row.status).toBe('failed');
      expect(BigInt(row.cost)).toBe(0n);
      expect(books.charged.has(row.id)).toBe(false);
    }
    const after = await readAccountMoney(gateway);
    expect(after.usage - before.usage).toBe(BigInt(engineRow.cost));
    expect(after.reserved).toBe(before.reserved);
  });
  it('on expiry, cancels the provider batch still running and fails its lines as batch_expired, uncharged', async () => {
    const before = await readAccountMoney(gateway);
    const file = await uploadBatchFile(client, jsonl([chatLine('x-1', 'sim/anthropic-model', 'Late'), chatLine('x-2', 'sim/anthropic-model', 'Later')]));
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    clock.advance(1_000);
    await gateway.test.context.tasks.runOnce();
    const providerBatchId = (await gateway.test.context.store.db.selectFrom('batch_lines').select('provider_batch_id').where('batch_id', '=', batch.id).executeTakeFirstOrThrow()).provider_batch_id;
    expect(providerBatchId).toMatch(/^msgbatch_/);
    clock.advance(25 * 60 * 60 * 1000);
    const done = await driveBatch(gateway.test, clock, client, batch.id);
    expect(done.status).toBe('expired');
    expect(done.request_counts).toEqual({ total: 2, completed: 0, failed: 2 });
    const sent = (await simulatorMessageBatches(gateway)).find((entry) => entry.id === providerBatchId)!;
    expect(sent.cancel_initiated_at).not.toBeNull();
    expect(sent.request_counts).toMatchObject({ succeeded: 0, canceled: 2 });
    const errors = await readJsonl(client, done.error_file_id);
    expect(errors.map((line) => [line.custom_id, line.error?.code])).toEqual([
      ['x-1', 'batch_expired'],
      ['x-2', 'batch_expired'],
    ]);
    const books = await booksOf(gateway, batch.id);
    expect(books.rows.map((row) => [row.status, BigInt(row.cost)])).toEqual([
      ['failed', 0n],
      ['failed', 0n],
    ]);
    const after = await readAccountMoney(gateway);
    expect(after.usage).toBe(before.usage);
    expect(after.reserved).toBe(before.reserved);
  });
});
