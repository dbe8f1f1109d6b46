import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { startSimulator, type Simulator } from '@switchyard/simulator';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { readAccountMoney, simulatedCatalogYaml } from '../helpers/simulated-gateway.js';
import { startTestApp, type TestApp } from '../helpers/start-test-app.js';
import { buildTestConfig } from '../helpers/test-config.js';
import { batchRows, chatLine, driveBatch, jsonl, readJsonl, uploadBatchFile } from './batch-harness.js';

/** The gateway on a SQLite file, so that a second instance can start on the same database. */
async function startOn(databaseUrl: string, simulator: Simulator, clock: ManualClock): Promise<{ test: TestApp; url: string }> {
  const config = buildTestConfig({ databaseUrl, yaml: simulatedCatalogYaml(simulator.url) });
  config.server.redisUrl = null;
  config.server.batches = { filesDir: null, maxFileBytes: 10 * 1024 * 1024, linesInFlight: 2 };
  const test = await startTestApp({ databaseUrl, config, clock });
  await test.app.listen({ host: '127.0.0.1', port: 0 });
  return { test, url: `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}` };
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('batch lifecycle on SQLite: restart, cancel, expiry', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp() {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-batch-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    // Slow enough answers that a batch is caught with lines in flight and lines not started.
    const simulator = await startSimulator({ latencyMs: 150 });
    cleanups.push(() => simulator.close());
    const clock = new ManualClock(Date.now());
    const databaseUrl = `sqlite:${join(dir, 'switchyard.db')}`;
    const first = await startOn(databaseUrl, simulator, clock);
    let firstClosed = false;
    cleanups.push(async () => {
      if (!firstClosed) await first.test.close();
    });
    const account = await first.test.createAccount({ credits: 100 });
    const client = new OpenAI({ apiKey: account.key, baseURL: `${first.url}/v1`, maxRetries: 0 });
    const lines = Array.from({ length: 10 }, (_, index) => chatLine(`line-${index + 1}`, ['sim/openai-model', 'sim/anthropic-model', 'sim/gemini-model'][index % 3], `Question ${index + 1}`));
    const file = await uploadBatchFile(client, jsonl(lines));
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const lineStates = () => first.test.context.store.db.selectFrom('batch_lines').select(['line_no', 'status', 'request_id']).where('batch_id', '=', batch.id).orderBy('line_no').execute();
    return {
      simulator,
      clock,
      databaseUrl,
      first,
      account,
      client,
      batch,
      lineStates,
      closeFirst: async () => {
        firstClosed = true;
        await first.test.close();
      },
    };
  }

  it('loses no line and charges none twice across a restart mid-batch, including a line answered and charged just before a crash', async () => {
    const { simulator, clock, databaseUrl, first, account, client, batch, lineStates, closeFirst } = await setUp();
    const before = await readAccountMoney({ test: first.test, accountId: account.accountId });
    const round = first.test.context.tasks.runOnce();
    await waitFor(async () => (await client.batches.retrieve(batch.id)).request_counts!.completed >= 3);
    // The instance stops at once: the lines in flight are aborted (uncharged) and go back to pending.
    await first.test.context.tasks.stop(0);
    await round;
    const stopped = await client.batches.retrieve(batch.id);
    expect(stopped.status).toBe('in_progress');
    expect(stopped.request_counts!.completed).toBeLessThan(10);
    // A crash right after a line's charge committed and before its answer was written: the line is
    // still `running` under the request id that was charged.
    const states = await lineStates();
    const answered = states.find((line) => line.status === 'completed')!;
    const db = first.test.context.store.db;
    await first.test.context.requestLog.flush();
    await db.updateTable('batch_lines').set({ status: 'running', response: null, status_code: null }).where('batch_id', '=', batch.id).where('line_no', '=', answered.line_no).execute();
    await db.updateTable('batches').set({ completed: stopped.request_counts!.completed - 1 }).where('id', '=', batch.id).execute();
    // A crash right after a line was marked running, before its request reached the provider.
    const pending = states.find((line) => line.status === 'pending')!;
    await db.updateTable('batch_lines').set({ status: 'running', request_id: 'req_01KZZZZZZZZZZZZZZZZZZZZZZZ' }).where('batch_id', '=', batch.id).where('line_no', '=', pending.line_no).execute();
    const chargedBefore = await batchRows({ test: first.test }, batch.id);
    await closeFirst();

    const second = await startOn(databaseUrl, simulator, clock);
    try {
      const secondClient = new OpenAI({ apiKey: account.key, baseURL: `${second.url}/v1`, maxRetries: 0 });
      const done = await driveBatch(second.test, clock, secondClient, batch.id);
      expect(done.status).toBe('completed');
      expect(done.request_counts).toEqual({ total: 10, completed: 10, failed: 0 });
      const output = await readJsonl(secondClient, done.output_file_id);
      expect(output.map((line) => line.custom_id)).toEqual(Array.from({ length: 10 }, (_, index) => `line-${index + 1}`));
      expect(await readJsonl(secondClient, done.error_file_id)).toEqual([]);

      const rows = await batchRows({ test: second.test }, batch.id);
      const completed = rows.filter((row) => row.status === 'completed');
      // Exactly one charged row per line: the line answered before the crash ran again under its
      // request id, which the books never charge twice.
      expect(completed).toHaveLength(10);
      expect(new Set(completed.map((row) => row.id)).size).toBe(10);
      expect(output.map((line) => line.response.request_id).sort()).toEqual(completed.map((row) => row.id).sort());
      expect(output[Number(answered.line_no) - 1].response.request_id).toBe(answered.request_id);
      const rerun = chargedBefore.find((row) => row.id === answered.request_id)!;
      expect(rows.find((row) => row.id === answered.request_id)!.cost).toBe(rerun.cost);
      // Rows of lines stopped mid-flight cost nothing; the account paid the sum of the batch's rows.
      for (const row of rows.filter((candidate) => candidate.status !== 'completed')) expect(row.cost).toBe(0n);
      const after = await readAccountMoney({ test: second.test, accountId: account.accountId });
      expect(after.usage - before.usage).toBe(rows.reduce((sum, row) => sum + row.cost, 0n));
      // The re-run's reservation is not taken by the books (its row was logged before the crash):
      // it is held until its time bound, and the ledger's sweep then releases it.
      clock.advance(3 * 60 * 60 * 1000);
      await second.test.context.ledger.sweep();
      expect((await readAccountMoney({ test: second.test, accountId: account.accountId })).reserved).toBe(before.reserved);
    } finally {
      await second.test.close();
    }
  });

  it('cancels mid-batch: lines not started never run and are not charged; the batch ends cancelled with its counts', async () => {
    const { simulator, first, account, client, batch } = await setUp();
    const before = await readAccountMoney({ test: first.test, accountId: account.accountId });
    const chatsBefore = simulator.stats().requests;
    const round = first.test.context.tasks.runOnce();
    await waitFor(async () => (await client.batches.retrieve(batch.id)).request_counts!.completed >= 2);
    const cancelling = await client.batches.cancel(batch.id);
    expect(cancelling.status).toBe('cancelling');
    expect(typeof cancelling.cancelling_at).toBe('number');
    await round;
    const done = await driveBatch(first.test, first.test.context.clock as ManualClock, client, batch.id);
    expect(done.status).toBe('cancelled');
    expect(typeof done.cancelled_at).toBe('number');
    const ran = done.request_counts!.completed;
    expect(ran).toBeGreaterThanOrEqual(2);
    expect(ran).toBeLessThan(10);
    expect(done.request_counts).toEqual({ total: 10, completed: ran, failed: 0 });
    const output = await readJsonl(client, done.output_file_id);
    expect(output).toHaveLength(ran);
    const rows = await batchRows({ test: first.test }, batch.id);
    expect(rows).toHaveLength(ran);
    expect(rows.every((row) => row.status === 'completed')).toBe(true);
    // Only the lines that ran reached a provider.
    expect(simulator.stats().requests - chatsBefore).toBe(ran);
    const after = await readAccountMoney({ test: first.test, accountId: account.accountId });
    expect(after.usage - before.usage).toBe(rows.reduce((sum, row) => sum + row.cost, 0n));
    expect(after.reserved).toBe(before.reserved);
    // Cancelling a finished batch changes nothing.
    expect((await client.batches.cancel(batch.id)).status).toBe('cancelled');
  });

  it('expires after its completion window: the lines not run are in the error file as batch_expired, uncharged', async () => {
    const { first, account, client, batch, clock } = await setUp();
    const before = await readAccountMoney({ test: first.test, accountId: account.accountId });
    const round = first.test.context.tasks.runOnce();
    await waitFor(async () => (await client.batches.retrieve(batch.id)).request_counts!.completed >= 2);
    clock.advance(25 * 60 * 60 * 1000);
    await round;
    const done = await driveBatch(first.test, clock, client, batch.id);
    expect(done.status).toBe('expired');
    expect(typeof done.expired_at).toBe('number');
    const ran = (await readJsonl(client, done.output_file_id)).length;
    expect(ran).toBeGreaterThanOrEqual(2);
    const errors = await readJsonl(client, done.error_file_id);
    expect(errors).toHaveLength(10 - ran);
    for (const line of errors) expect(line).toMatchObject({ response: null, error: { code: 'batch_expired' } });
    expect(done.request_counts).toEqual({ total: 10, completed: ran, failed: 10 - ran });
    const rows = await batchRows({ test: first.test }, batch.id);
    expect(rows.filter((row) => row.status === 'completed')).toHaveLength(ran);
    const after = await readAccountMoney({ test: first.test, accountId: account.accountId });
    expect(after.usage - before.usage).toBe(rows.reduce((sum, row) => sum + row.cost, 0n));
  });
});
