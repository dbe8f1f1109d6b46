import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startSimulator, type Simulator } from '@switchyard/simulator';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { readAccountMoney, simulatedCatalogYaml } from '../helpers/simulated-gateway.js';
import { startTestApp, type TestApp } from '../helpers/start-test-app.js';
import { buildTestConfig } from '../helpers/test-config.js';
import { chatLine, driveBatch, jsonl, readJsonl, uploadBatchFile } from './batch-harness.js';

/**
 * Issue 51's acceptance, end to end: the `openai` SDK with its defaults uploads a 1,000-line
 * Chat Completions file over an openai-, an anthropic- and a gemini-wire model whose endpoints
 * have `batch_discount: 0.5` (each goes to its provider's own batch API: OpenAI Batch, Message
 * Batches, Gemini batch mode) and a model without one (the gateway's engine, list price), plus an
 * embeddings file (OpenAI Batch at the discount; a Gemini embedding model on the engine); the
 * gateway is restarted mid-batch; every line is answered once and charged once, and the books add up.
 */

/** The simulated catalog with the three one-protocol models discounted and two embedding models added. */
function acceptanceCatalog(simulatorUrl: string): string {
  let yaml = simulatedCatalogYaml(simulatorUrl);
  for (const model of ['gpt-sim', 'claude-sim', 'gemini-sim']) {
    const before = `        model: ${model}\n        pricing: {prompt: 1, completion: 2}\n`;
    if (!yaml.includes(before)) throw new Error('the simulated catalog changed: update this test');
    yaml = yaml.replace(before, `        model: ${model}\n        pricing: {prompt: 1, completion: 2, batch_discount: 0.5}\n`);
  }
  return `${yaml}  - id: sim/embed-openai
    name: "Sim: OpenAI embeddings"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1536, output_dimensions: any, max_input_tokens: 8191}
    endpoints:
      - {provider: sim-openai, model: text-embedding-3-small, pricing: {prompt: 0.02, batch_discount: 0.5}}
  - id: sim/embed-gemini
    name: "Sim: Gemini embeddings"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 3072, output_dimensions: any, max_input_tokens: 2048}
    endpoints:
      - {provider: sim-gemini, model: gemini-embedding-001, pricing: {prompt: 0.15, batch_discount: 0.5}}
`;
}

const ceilDiv = (numerator: bigint, denominator: bigint) => (numerator + denominator - 1n) / denominator;
/** The live text rule in nano-USD: tokens × USD per million, rounded up once. */
const listCost = (prompt: bigint, completion: bigint, promptUsd: bigint, completionUsd: bigint) => ceilDiv(prompt * promptUsd * 1_000_000_000n + completion * completionUsd * 1_000_000_000n, 1_000_000n);
const halfOf = (cost: bigint) => ceilDiv(cost * 500_000n, 1_000_000n);

async function startOn(databaseUrl: string, simulator: Simulator, clock: ManualClock, catalog = acceptanceCatalog): Promise<{ test: TestApp; url: string }> {
  const config = buildTestConfig({ databaseUrl, yaml: catalog(simulator.url) });
  config.server.redisUrl = null;
  const test = await startTestApp({ databaseUrl, config, clock });
  await test.app.listen({ host: '127.0.0.1', port: 0 });
  return { test, url: `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}` };
}

const chatModels = ['sim/openai-model', 'sim/anthropic-model', 'sim/gemini-model', 'sim/backup'] as const;
/** The provider batch id each discounted model's lines are held under. */
const providerBatchIdPattern: Record<string, RegExp> = {
  'sim/openai-model': /^batch_/,
  'sim/anthropic-model': /^msgbatch_/,
  'sim/gemini-model': /^batches\//,
};

describe('issue 51 acceptance: one batch file for every model, at the providers’ batch prices', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp() {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-batch-acceptance-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const simulator = await startSimulator({ apiKey: 'sim-key', batchDurationMs: 200 });
    cleanups.push(() => simulator.close());
    const clock = new ManualClock(Date.now());
    const databaseUrl = `sqlite:${join(dir, 'switchyard.db')}`;
    return { simulator, clock, databaseUrl };
  }

  it('runs a 1,000-line chat file over openai-, anthropic- and gemini-wire models through their batch APIs at half price and a list-price model on the engine, across a restart, charging each line once', async () => {
    const { simulator, clock, databaseUrl } = await setUp();
    const first = await startOn(databaseUrl, simulator, clock);
    let firstOpen = true;
    cleanups.push(async () => {
      if (firstOpen) await first.test.close();
    });
    const account = await first.test.createAccount({ credits: 1000 });
    const client = new OpenAI({ apiKey: account.key, baseURL: `${first.url}/v1` });
    const before = await readAccountMoney({ test: first.test, accountId: account.accountId });

    const lines = Array.from({ length: 1000 }, (_, index) => chatLine(`req-${index + 1}`, chatModels[index % 4], `Question number ${index + 1}: ${'why '.repeat(index % 7)}`));
    const file = await uploadBatchFile(client, jsonl(lines));
    expect(file).toMatchObject({ purpose: 'batch', status: 'processed' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(batch.status).toBe('validating');

    // Steps of the first instance until lines are held in provider batches and the engine has answered some.
    const db = first.test.context.store.db;
    const lineStates = () => db.selectFrom('batch_lines').select(['line_no', 'status', 'provider_batch_id', 'executor']).where('batch_id', '=', batch.id).execute();
    for (let step = 0; ; step++) {
      clock.advance(1_000);
      await first.test.context.tasks.runOnce();
      const states = await lineStates();
      if (states.some((line) => line.provider_batch_id !== null) && states.some((line) => line.status === 'completed' && line.executor === 'engine')) break;
      if (step > 50) throw new Error('the batch never reached its provider batches');
    }
    const midway = await client.batches.retrieve(batch.id);
    expect(midway.status).toBe('in_progress');
    expect(midway.request_counts!.completed).toBeLessThan(1000);
    // The instance stops at once; a second one on the same database finishes the batch.
    await first.test.context.tasks.stop(0);
    firstOpen = false;
    await first.test.close();

    const second = await startOn(databaseUrl, simulator, clock);
    cleanups.push(() => second.test.close());
    const secondClient = new OpenAI({ apiKey: account.key, baseURL: `${second.url}/v1` });
    const done = await driveBatch(second.test, clock, secondClient, batch.id, 120_000);
    expect(done.status).toBe('completed');
    expect(done.request_counts).toEqual({ total: 1000, completed: 1000, failed: 0 });
    expect(await readJsonl(secondClient, done.error_file_id)).toEqual([]);
    const output = await readJsonl(secondClient, done.output_file_id);
    expect(output.map((line) => line.custom_id)).toEqual(lines.map((line) => line.custom_id));

    // Where each line ran: the discounted models' lines in their provider's batch API, the other on the engine.
    const states = await second.test.context.store.db.selectFrom('batch_lines').select(['line_no', 'model', 'executor', 'provider_batch_id']).where('batch_id', '=', batch.id).orderBy('line_no').execute();
    for (const line of states) {
      if (line.model === 'sim/backup') {
        expect(line.executor).toBe('engine');
        expect(line.provider_batch_id).toBeNull();
      } else {
        expect(line.executor).toBe('provider');
        expect(line.provider_batch_id).toMatch(providerBatchIdPattern[line.model]);
      }
    }

    await second.test.context.requestLog.flush();
    const rows = await second.test.context.store.db.selectFrom('requests').selectAll().where('batch_id', '=', batch.id).execute();
    const completed = rows.filter((row) => row.status === 'completed');
    // One charged row per line, and each line's answer names its row.
    expect(completed).toHaveLength(1000);
    expect(new Set(completed.map((row) => row.id)).size).toBe(1000);
    const byId = new Map(completed.map((row) => [row.id, row]));
    const providerOf: Record<string, string> = { 'sim/openai-model': 'sim-openai', 'sim/anthropic-model': 'sim-anthropic', 'sim/gemini-model': 'sim-gemini', 'sim/backup': 'sim-anthropic' };
    for (const [index, line] of output.entries()) {
      expect(line.error).toBeNull();
      expect(line.response.status_code).toBe(200);
      const body = line.response.body;
      expect(body).toMatchObject({ object: 'chat.completion', model: chatModels[index % 4], choices: [{ message: { role: 'assistant' } }] });
      expect(typeof body.choices[0].message.content).toBe('string');
      const row = byId.get(line.response.request_id)!;
      expect(row.model).toBe(chatModels[index % 4]);
      expect(row.provider).toBe(providerOf[row.model]);
      expect(Number(row.prompt_tokens)).toBe(body.usage.prompt_tokens);
      expect(Number(row.completion_tokens)).toBe(body.usage.completion_tokens);
      const prompt = BigInt(row.prompt_tokens);
      const completion = BigInt(row.completion_tokens);
      // The discounted models: the live rule's cost × 0.5, rounded up once; the other: its list price ($1 / $1 per million).
      const expected = row.model === 'sim/backup' ? listCost(prompt, completion, 1n, 1n) : halfOf(listCost(prompt, completion, 1n, 2n));
      expect(BigInt(row.cost)).toBe(expected);
    }
    // Rows of lines stopped by the restart cost nothing; the account paid exactly the batch's rows, and nothing stays reserved.
    for (const row of rows.filter((candidate) => candidate.status !== 'completed')) expect(BigInt(row.cost)).toBe(0n);
    const charged = rows.reduce((sum, row) => sum + BigInt(row.cost), 0n);
    const ledger = await second.test.context.store.db.selectFrom('ledger_entries').select('amount').where('account_id', '=', account.accountId).where('kind', '=', 'charge').execute();
    expect(ledger.reduce((sum, entry) => sum + BigInt(entry.amount), 0n)).toBe(charged);
    const after = await readAccountMoney({ test: second.test, accountId: account.accountId });
    expect(after.usage - before.usage).toBe(charged);
    // A line stopped mid-flight by the restart keeps its reservation until the ledger's sweep.
    clock.advance(30 * 60 * 60 * 1000);
    await second.test.context.ledger.sweep();
    expect((await readAccountMoney({ test: second.test, accountId: account.accountId })).reserved).toBe(before.reserved);
  }, 240_000);

  it('does the same for @anthropic-ai/sdk messages.batches: create, retrieve across a restart, results; each provider batch line at half price, the engine line at list price', async () => {
    const { simulator, clock, databaseUrl } = await setUp();
    const first = await startOn(databaseUrl, simulator, clock);
    let firstOpen = true;
    cleanups.push(async () => {
      if (firstOpen) await first.test.close();
    });
    const account = await first.test.createAccount({ credits: 100 });
    const anthropic = new Anthropic({ baseURL: first.url, apiKey: account.key });
    const before = await readAccountMoney({ test: first.test, accountId: account.accountId });
    const requests = Array.from({ length: 40 }, (_, index) => ({ custom_id: `m-${index + 1}`, params: { model: chatModels[index % 4], max_tokens: 60, messages: [{ role: 'user' as const, content: `Message ${index + 1}` }] } }));
    const created = await anthropic.messages.batches.create({ requests });
    expect(created.processing_status).toBe('in_progress');
    for (let step = 0; ; step++) {
      clock.advance(1_000);
      await first.test.context.tasks.runOnce();
      const held = await first.test.context.store.db.selectFrom('batch_lines').select('provider_batch_id').where('batch_id', '=', created.id).where('provider_batch_id', 'is not', null).execute();
      if (held.length > 0) break;
      if (step > 50) throw new Error('the message batch never reached its provider batches');
    }
    await first.test.context.tasks.stop(0);
    firstOpen = false;
    await first.test.close();

    const second = await startOn(databaseUrl, simulator, clock);
    cleanups.push(() => second.test.close());
    const client = new Anthropic({ baseURL: second.url, apiKey: account.key });
    const deadline = Date.now() + 60_000;
    let done = await client.messages.batches.retrieve(created.id);
    while (done.processing_status !== 'ended') {
      if (Date.now() > deadline) throw new Error(`message batch still ${done.processing_status}`);
      clock.advance(1_000);
      await second.test.context.tasks.runOnce();
      done = await client.messages.batches.retrieve(created.id);
    }
    expect(done.request_counts).toEqual({ processing: 0, succeeded: 40, errored: 0, canceled: 0, expired: 0 });
    const results = [];
    for await (const result of await client.messages.batches.results(created.id)) results.push(result);
    expect(results.map((result) => result.custom_id)).toEqual(requests.map((request) => request.custom_id));

    await second.test.context.requestLog.flush();
    const rows = await second.test.context.store.db.selectFrom('requests').selectAll().where('batch_id', '=', created.id).execute();
    const byId = new Map(rows.filter((row) => row.status === 'completed').map((row) => [row.id, row]));
    expect(byId.size).toBe(40);
    const states = new Map((await second.test.context.store.db.selectFrom('batch_lines').select(['custom_id', 'provider_batch_id', 'request_id']).where('batch_id', '=', created.id).execute()).map((line) => [line.custom_id, line]));
    for (const [index, result] of results.entries()) {
      if (result.result.type !== 'succeeded') throw new Error(`${result.custom_id} ${result.result.type}`);
      const message = result.result.message;
      expect(message).toMatchObject({ type: 'message', role: 'assistant', model: chatModels[index % 4] });
      const line = states.get(result.custom_id)!;
      const row = byId.get(line.request_id!)!;
      expect(Number(row.prompt_tokens)).toBe(message.usage.input_tokens);
      expect(Number(row.completion_tokens)).toBe(message.usage.output_tokens);
      const prompt = BigInt(row.prompt_tokens);
      const completion = BigInt(row.completion_tokens);
      if (row.model === 'sim/backup') {
        expect(line.provider_batch_id).toBeNull();
        expect(BigInt(row.cost)).toBe(listCost(prompt, completion, 1n, 1n));
      } else {
        expect(line.provider_batch_id).toMatch(providerBatchIdPattern[row.model]);
        expect(BigInt(row.cost)).toBe(halfOf(listCost(prompt, completion, 1n, 2n)));
      }
    }
    const charged = rows.reduce((sum, row) => sum + BigInt(row.cost), 0n);
    const after = await readAccountMoney({ test: second.test, accountId: account.accountId });
    expect(after.usage - before.usage).toBe(charged);
    clock.advance(30 * 60 * 60 * 1000);
    await second.test.context.ledger.sweep();
    expect((await readAccountMoney({ test: second.test, accountId: account.accountId })).reserved).toBe(before.reserved);
  }, 120_000);

  it('runs an embeddings file: OpenAI embeddings lines through OpenAI Batch at half price, Gemini embeddings lines on the engine at list price', async () => {
    const { simulator, clock, databaseUrl } = await setUp();
    const gateway = await startOn(databaseUrl, simulator, clock);
    cleanups.push(() => gateway.test.close());
    const account = await gateway.test.createAccount({ credits: 100 });
    const client = new OpenAI({ apiKey: account.key, baseURL: `${gateway.url}/v1` });
    const before = await readAccountMoney({ test: gateway.test, accountId: account.accountId });
    const lines: Array<{ custom_id: string; method: string; url: string; body: { model: string; input: string[] } }> = Array.from({ length: 40 }, (_, index) => ({
      custom_id: `emb-${index + 1}`,
      method: 'POST',
      url: '/v1/embeddings',
      body: { model: index % 2 === 0 ? 'sim/embed-openai' : 'sim/embed-gemini', input: [`text ${index + 1}`, `another text ${index + 1}`] },
    }));
    // 2,049 inputs: more than one OpenAI embeddings call carries (2,048), so this line runs on the
    // engine, which splits it as the live request does, at the list price.
    lines.push({ custom_id: 'many', method: 'POST', url: '/v1/embeddings', body: { model: 'sim/embed-openai', input: Array.from({ length: 2049 }, (_, index) => `input ${index}`) } });
    const file = await uploadBatchFile(client, jsonl(lines));
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/embeddings', completion_window: '24h' });
    const done = await driveBatch(gateway.test, clock, client, batch.id, 60_000);
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 41, completed: 41, failed: 0 } });
    const output = await readJsonl(client, done.output_file_id);
    expect(output.map((line) => line.custom_id)).toEqual(lines.map((line) => line.custom_id));

    const states = await gateway.test.context.store.db.selectFrom('batch_lines').select(['custom_id', 'model', 'executor', 'provider_batch_id']).where('batch_id', '=', batch.id).execute();
    for (const line of states) {
      if (line.model === 'sim/embed-openai' && line.custom_id !== 'many') expect(line.provider_batch_id).toMatch(/^batch_/);
      else expect([line.executor, line.provider_batch_id]).toEqual(['engine', null]);
    }
    await gateway.test.context.requestLog.flush();
    const rows = new Map((await gateway.test.context.store.db.selectFrom('requests').selectAll().where('batch_id', '=', batch.id).execute()).map((row) => [row.id, row]));
    let charged = 0n;
    for (const [index, line] of output.entries()) {
      // No encoding_format in the line: floats, as OpenAI answers, whichever executor ran the line.
      expect(line.response.body).toMatchObject({ object: 'list', model: lines[index].body.model });
      expect(line.response.body.data).toHaveLength(lines[index].body.input.length);
      expect(line.response.body.data[0].embedding).toHaveLength(line.response.body.model === 'sim/embed-openai' ? 1536 : 3072);
      const row = rows.get(line.response.request_id)!;
      expect(row.status).toBe('completed');
      const tokens = BigInt(row.prompt_tokens);
      expect(tokens).toBeGreaterThan(0n);
      // $0.02 per million at half price; $0.15 per million at the list price.
      const usdPerMillionNano = row.model === 'sim/embed-openai' ? 20_000_000n : 150_000_000n;
      const list = ceilDiv(tokens * usdPerMillionNano, 1_000_000n);
      const expected = row.model === 'sim/embed-openai' && line.custom_id !== 'many' ? halfOf(list) : list;
      expect(BigInt(row.cost)).toBe(expected);
      charged += BigInt(row.cost);
    }
    const after = await readAccountMoney({ test: gateway.test, accountId: account.accountId });
    expect(after.usage - before.usage).toBe(charged);
    expect(after.reserved).toBe(before.reserved);
  }, 120_000);

  it('runs on the engine the lines whose provider batch submission the provider refuses for good, so the batch does not wait for its expiry', async () => {
    const { simulator, clock, databaseUrl } = await setUp();
    // The simulator's batch API refuses sim-openai's key; its live endpoint refuses it the same way.
    const wrongKey = (url: string) => acceptanceCatalog(url).replace('{id: sim-openai, name: Sim OpenAI, api: openai, base_url: "' + url + '/openai/v1", api_key: sim-key', '{id: sim-openai, name: Sim OpenAI, api: openai, base_url: "' + url + '/openai/v1", api_key: not-the-key');
    const refused = await startOn(databaseUrl, simulator, clock, wrongKey);
    cleanups.push(() => refused.test.close());
    const account = await refused.test.createAccount({ credits: 100 });
    const client = new OpenAI({ apiKey: account.key, baseURL: `${refused.url}/v1` });
    const before = await readAccountMoney({ test: refused.test, accountId: account.accountId });
    const file = await uploadBatchFile(client, jsonl([chatLine('o-1', 'sim/openai-model', 'Hello'), chatLine('a-1', 'sim/anthropic-model', 'Hello')]));
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const done = await driveBatch(refused.test, clock, client, batch.id);
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 2, completed: 1, failed: 1 } });
    // The refused line ran on the engine, as the live request would, and failed as it does: uncharged.
    const lines = await refused.test.context.store.db.selectFrom('batch_lines').select(['custom_id', 'executor', 'provider_batch_id']).where('batch_id', '=', batch.id).orderBy('line_no').execute();
    expect(lines[0]).toEqual({ custom_id: 'o-1', executor: 'engine', provider_batch_id: null });
    expect(lines[1].provider_batch_id).toMatch(/^msgbatch_/);
    const errors = await readJsonl(client, done.error_file_id);
    expect(errors.map((line) => line.custom_id)).toEqual(['o-1']);
    await refused.test.context.requestLog.flush();
    const rows = await refused.test.context.store.db.selectFrom('requests').selectAll().where('batch_id', '=', batch.id).execute();
    expect(rows.filter((row) => row.status !== 'completed').every((row) => BigInt(row.cost) === 0n)).toBe(true);
    const after = await readAccountMoney({ test: refused.test, accountId: account.accountId });
    expect(after.usage - before.usage).toBe(rows.reduce((sum, row) => sum + BigInt(row.cost), 0n));
    expect(after.reserved).toBe(before.reserved);

  }, 120_000);
});
