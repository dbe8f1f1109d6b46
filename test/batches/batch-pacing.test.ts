import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { readAccountMoney, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { batchRows, chatLine, jsonl, readJsonl, uploadBatchFile } from './batch-harness.js';

/**
 * Batch lines on the gateway's engine are paced per provider across every batch of the instance
 * (`SWITCHYARD_BATCH_LINES_PER_PROVIDER`), and a line the provider rate limits waits and runs
 * again after its Retry-After instead of failing. SQLite, the simulator as the provider (its
 * fault rules and its count of requests in flight), the OpenAI SDK.
 */
describe('batch pacing per provider', () => {
  let gateway: (SimulatedGateway & { clock: ManualClock }) | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  async function start(linesInFlight: number, linesPerProvider: number): Promise<{ gateway: SimulatedGateway & { clock: ManualClock }; client: OpenAI }> {
    const clock = new ManualClock(Date.now());
    const started = await startSimulatedGateway({
      clock,
      configure: (config) => {
        config.server.batches = { filesDir: null, maxFileBytes: 10 * 1024 * 1024, linesInFlight, linesPerProvider };
      },
    });
    gateway = Object.assign(started, { clock });
    return { gateway, client: new OpenAI({ apiKey: started.key, baseURL: `${started.url}/v1`, maxRetries: 0 }) };
  }

  async function createBatch(client: OpenAI, name: string, count: number, others: string[] = []) {
    const lines = [
      ...Array.from({ length: count }, (_, index) => chatLine(`${name}-${index + 1}`, 'sim/openai-model', `${name} question ${index + 1}`)),
      ...others.map((id) => chatLine(id, 'sim/anthropic-model', `${name} ${id}`)),
    ];
    const file = await uploadBatchFile(client, jsonl(lines), `${name}.jsonl`);
    return client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
  }

  /** Runs the task engine until every batch has ended. */
  async function driveAll(started: SimulatedGateway & { clock: ManualClock }, client: OpenAI, ids: string[], timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      started.clock.advance(1_000);
      await started.test.context.tasks.runOnce();
      const batches = await Promise.all(ids.map((id) => client.batches.retrieve(id)));
      if (batches.every((batch) => ['completed', 'failed', 'expired', 'cancelled'].includes(batch.status))) return batches;
      if (Date.now() > deadline) throw new Error(`batches still ${batches.map((batch) => batch.status).join(', ')} after the test's time limit`);
    }
  }

  it('keeps the lines of two batches on one provider within the per-provider bound, though each batch may run more', async () => {
    const { gateway: started, client } = await start(4, 2);
    const first = await createBatch(client, 'first', 8);
    const second = await createBatch(client, 'second', 8);
    started.simulator.reset();
    // Slow answers, so lines overlap: without the bound each batch alone would have 4 in flight.
    started.simulator.setFault({ match: { model: 'gpt-sim' }, fault: { latency: 150 } });
    const ended = await driveAll(started, client, [first.id, second.id]);
    expect(ended.map((batch) => batch.status)).toEqual(['completed', 'completed']);
    expect(ended.map((batch) => batch.request_counts)).toEqual([
      { total: 8, completed: 8, failed: 0 },
      { total: 8, completed: 8, failed: 0 },
    ]);
    const stats = started.simulator.stats();
    expect(stats.requests).toBe(16);
    // Both batches ran at once (without the bound the simulator sees 8 calls in flight), never more than 2 on the provider.
    expect(stats.faultsInjected).toBe(16);
    expect(stats.maxOpen).toBeGreaterThan(0);
    expect(stats.maxOpen).toBeLessThanOrEqual(2);
  });

  it("puts a line the provider rate limits back and runs it after Retry-After, uncharged for the refusal, while other providers' lines go on", async () => {
    const { gateway: started, client } = await start(2, 8);
    const before = await readAccountMoney(started);
    // The provider answers the first two calls with 429 and `retry-after: 1`.
    started.simulator.setFault({ match: { model: 'gpt-sim' }, fault: { status: 429, retry_after: 1 }, times: 2 });
    const batch = await createBatch(client, 'limited', 5, ['other-1', 'other-2']);
    const [ended] = await driveAll(started, client, [batch.id]);
    expect(ended.status).toBe('completed');
    expect(ended.request_counts).toEqual({ total: 7, completed: 7, failed: 0 });
    expect(await readJsonl(client, ended.error_file_id)).toEqual([]);
    const output = await readJsonl(client, ended.output_file_id);
    expect(output.map((line) => line.custom_id).sort()).toEqual(['limited-1', 'limited-2', 'limited-3', 'limited-4', 'limited-5', 'other-1', 'other-2']);
    expect(output.every((line) => line.response.status_code === 200)).toBe(true);
    // Nine calls: two refused, seven answered.
    expect(started.simulator.stats().requests).toBe(9);
    const rows = await batchRows(started, batch.id);
    const refused = rows.filter((row) => row.status !== 'completed');
    expect(refused).toHaveLength(2);
    expect(refused.every((row) => row.cost === 0n)).toBe(true);
    const completed = rows.filter((row) => row.status === 'completed');
    expect(completed).toHaveLength(7);
    // Each answered line appears once in the output under its own request id, and the books charge exactly those.
    expect(new Set(output.map((line) => line.response.request_id))).toEqual(new Set(completed.map((row) => row.id)));
    const after = await readAccountMoney(started);
    expect(after.usage - before.usage).toBe(completed.reduce((sum, row) => sum + row.cost, 0n));
    expect(after.reserved).toBe(0n);
  });
});
