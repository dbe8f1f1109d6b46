import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { readAccountMoney, sendJson, simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { buildTestConfig } from '../helpers/test-config.js';
import { testDatabases } from '../helpers/test-databases.js';
import { driveBatch, jsonl, readJsonl, uploadBatchFile } from './batch-harness.js';

/** The simulated catalog with `batch_discount` on the anthropic-wire model's endpoint (and prices whose half rounds). */
function discountedCatalog(discount: string) {
  return (simulatorUrl: string) => {
    const yaml = simulatedCatalogYaml(simulatorUrl);
    const before = '        model: claude-sim\n        pricing: {prompt: 1, completion: 2}\n';
    if (!yaml.includes(before)) throw new Error('the simulated catalog changed: update this test');
    return yaml.replace(before, `        model: claude-sim\n        pricing: {prompt: 3, completion: 15, batch_discount: ${discount}}\n`);
  };
}

function messagesLine(customId: string, model: string, content: string) {
  return { custom_id: customId, method: 'POST', url: '/v1/messages', body: { model, max_tokens: 40, messages: [{ role: 'user', content }] } };
}

const ceilDiv = (numerator: bigint, denominator: bigint) => (numerator + denominator - 1n) / denominator;
/** The live text rule at $3 / $15 per million tokens, in nano-USD, rounded up once. */
const listCost = (prompt: number, completion: number) => ceilDiv(BigInt(prompt) * 3_000_000_000n + BigInt(completion) * 15_000_000_000n, 1_000_000n);

describe.each(testDatabases())('provider batch discount on $name', ({ url }) => {
  let gateway: SimulatedGateway;
  let clock: ManualClock;
  let client: OpenAI;

  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    gateway = await startSimulatedGateway({ databaseUrl: url, clock, credits: 100, simulator: { apiKey: 'sim-key', batchDurationMs: 100 }, catalogYaml: discountedCatalog('0.5') });
    client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('sends the discounted endpoint’s lines through Anthropic Message Batches at live cost × 0.5 and runs the others at list price; the books are exact and nothing stays reserved', async () => {
    const before = await readAccountMoney(gateway);
    const lines = [
      messagesLine('anthropic-1', 'sim/anthropic-model', 'Say hello from the batch'),
      messagesLine('openai-1', 'sim/openai-model', 'Say hello from OpenAI'),
      messagesLine('anthropic-2', 'sim/anthropic-model', 'Tell me a much longer story about a lighthouse keeper and the sea'),
    ];
    const file = await uploadBatchFile(client, jsonl(lines));
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/messages' as never, completion_window: '24h' });
    const done = await driveBatch(gateway.test, clock, client, batch.id);
    expect(done.status).toBe('completed');
    expect(done.request_counts).toEqual({ total: 3, completed: 3, failed: 0 });

    // The anthropic lines went to the simulator's Message Batches API, as one batch, under line numbers.
    const listed = (await (await fetch(`${gateway.simulator.url}/anthropic/v1/messages/batches`, { headers: { 'x-api-key': 'sim-key', 'anthropic-version': '2023-06-01' } })).json()) as { data: Array<{ id: string; results_url: string }> };
    expect(listed.data).toHaveLength(1);
    const results = (await (await fetch(listed.data[0].results_url, { headers: { 'x-api-key': 'sim-key', 'anthropic-version': '2023-06-01' } })).text()).trim().split('\n').map((line) => JSON.parse(line));
    expect(results.map((result: { custom_id: string; result: { type: string } }) => [result.custom_id, result.result.type])).toEqual([
      ['line-1', 'succeeded'],
      ['line-3', 'succeeded'],
    ]);

    const output = await readJsonl(client, done.output_file_id);
    expect(output.map((line) => line.custom_id)).toEqual(['anthropic-1', 'openai-1', 'anthropic-2']);
    for (const line of output) {
      expect(line.error).toBeNull();
      expect(line.response.status_code).toBe(200);
      expect(line.response.body).toMatchObject({ type: 'message', role: 'assistant' });
    }
    expect(output.map((line) => line.response.body.model)).toEqual(['sim/anthropic-model', 'sim/openai-model', 'sim/anthropic-model']);

    await gateway.test.context.requestLog.flush();
    const rows = await gateway.test.context.store.db.selectFrom('requests').selectAll().where('batch_id', '=', batch.id).orderBy('id').execute();
    expect(rows).toHaveLength(3);
    const byId = new Map(rows.map((row) => [row.id, row]));
    let charged = 0n;
    for (const line of output) {
      const row = byId.get(line.response.request_id)!;
      expect(row.status).toBe('completed');
      const cost = BigInt(row.cost);
      charged += cost;
      if (line.custom_id.startsWith('anthropic')) {
        // Live cost × 0.5, rounded up once, from the tokens the provider's batch reported.
        expect(row.provider).toBe('sim-anthropic');
        expect(Number(row.prompt_tokens)).toBe(line.response.body.usage.input_tokens);
        expect(Number(row.completion_tokens)).toBe(line.response.body.usage.output_tokens);
        expect(cost).toBe(ceilDiv(listCost(Number(row.prompt_tokens), Number(row.completion_tokens)) * 500_000n, 1_000_000n));
        expect(cost).toBeGreaterThan(0n);
      } else {
        // The list price: $1 / $2 per million, as the live request costs.
        expect(row.provider).toBe('sim-openai');
        expect(cost).toBe(ceilDiv(BigInt(row.prompt_tokens) * 1_000_000_000n + BigInt(row.completion_tokens) * 2_000_000_000n, 1_000_000n));
      }
    }

    // The same request live costs exactly twice the batch line (up to the one rounding).
    const live = await sendJson(gateway, gateway.key, 'POST', '/v1/messages', lines[0].body);
    expect(live.status).toBe(200);
    await gateway.test.context.requestLog.flush();
    const liveRow = await gateway.test.context.store.db.selectFrom('requests').selectAll().where('batch_id', 'is', null).where('model', '=', 'sim/anthropic-model').orderBy('id', 'desc').executeTakeFirstOrThrow();
    const batchRow = byId.get(output[0].response.request_id)!;
    expect(Number(liveRow.prompt_tokens)).toBe(Number(batchRow.prompt_tokens));
    expect(BigInt(batchRow.cost)).toBe(ceilDiv(BigInt(liveRow.cost) * 500_000n, 1_000_000n));

    const after = await readAccountMoney(gateway);
    expect(after.usage - before.usage).toBe(charged + BigInt(liveRow.cost));
    expect(after.reserved).toBe(before.reserved);
  });

  it('resumes polling the same provider batch after a restart of the poll and charges no line twice', async () => {
    const before = await readAccountMoney(gateway);
    const file = await uploadBatchFile(client, jsonl([messagesLine('x', 'sim/anthropic-model', 'Once'), messagesLine('y', 'sim/anthropic-model', 'Twice')]));
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/messages' as never, completion_window: '24h' });
    // One step: validated and sent; the provider's batch has not ended yet.
    clock.advance(1_000);
    await gateway.test.context.tasks.runOnce();
    const sent = await gateway.test.context.store.db.selectFrom('batch_lines').selectAll().where('batch_id', '=', batch.id).orderBy('line_no').execute();
    expect(sent.map((line) => line.status)).toEqual(['running', 'running']);
    expect(sent[0].provider_batch_id).toMatch(/^msgbatch_/);
    expect(sent[1].provider_batch_id).toBe(sent[0].provider_batch_id);
    expect((await readAccountMoney(gateway)).reserved).toBeGreaterThan(before.reserved);

    // The state is in the database: a line ended and settled once is not charged again when a
    // second poll (another instance after a restart) finds the same provider batch ended.
    const done = await driveBatch(gateway.test, clock, client, batch.id);
    expect(done.request_counts).toEqual({ total: 2, completed: 2, failed: 0 });
    const { pollProviderLines } = await import('../../src/batches/run-provider-batch.js');
    const { batchLineCodec } = await import('../../src/api/batches/line-codec.js');
    const { findBatchById } = await import('../../src/batches/db/batches.js');
    await gateway.test.context.store.db.updateTable('batch_lines').set({ status: 'running' }).where('batch_id', '=', batch.id).execute();
    const record = (await findBatchById(gateway.test.context.store.db, batch.id))!;
    const owner = { keyId: record.keyId, accountId: record.accountId, management: false, maxPrice: null, modelMaxPrices: {}, requestsPerMinute: null };
    await pollProviderLines(gateway.test.context, record, owner, batchLineCodec, new AbortController().signal);
    await gateway.test.context.requestLog.flush();
    const rows = await gateway.test.context.store.db.selectFrom('requests').selectAll().where('batch_id', '=', batch.id).execute();
    expect(rows).toHaveLength(2);
    const charged = rows.reduce((sum, row) => sum + BigInt(row.cost), 0n);
    const after = await readAccountMoney(gateway);
    expect(after.usage - before.usage).toBe(charged);
    expect(after.reserved).toBe(before.reserved);
  });
});

describe('pricing.batch_discount in the config', () => {
  const yamlWith = (discount: string) =>
    `providers:\n  - {id: a, name: A, api: anthropic, base_url: "http://127.0.0.1:1/anthropic", api_key: k}\nmodels:\n  - id: x/m\n    name: M\n    context_length: 1000\n    modalities: {input: [text], output: [text]}\n    endpoints:\n      - provider: a\n        model: m\n        pricing: {prompt: 1, completion: 2, batch_discount: ${discount}}\n`;

  it('is stored exactly in parts per million, from a number or a decimal string', () => {
    expect(buildTestConfig({ yaml: yamlWith('0.5') }).models[0].endpoints[0].pricing.batchDiscountPpm).toBe(500_000n);
    expect(buildTestConfig({ yaml: yamlWith('"0.333333"') }).models[0].endpoints[0].pricing.batchDiscountPpm).toBe(333_333n);
    expect(buildTestConfig({ yaml: yamlWith('1') }).models[0].endpoints[0].pricing.batchDiscountPpm).toBe(1_000_000n);
  });

  it('refuses 0, more than 1 and more than 6 decimals, naming the field', () => {
    for (const bad of ['0', '1.5', '"0.1234567"', '"-0.5"']) {
      expect(() => buildTestConfig({ yaml: yamlWith(bad) }), bad).toThrow(/batch_discount/);
    }
  });
});
