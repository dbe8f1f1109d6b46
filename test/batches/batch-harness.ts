import OpenAI, { toFile } from 'openai';
import type { SimulatedGateway } from '../helpers/simulated-gateway.js';
import type { ManualClock } from '../helpers/manual-clock.js';
import type { TestApp } from '../helpers/start-test-app.js';

/** One batch request line in OpenAI's format. */
export function chatLine(customId: string, model: string, content: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content }], max_tokens: 50, ...extra } };
}

export function jsonl(lines: readonly unknown[]): string {
  return lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n';
}

export async function uploadBatchFile(client: OpenAI, text: string, name = 'input.jsonl') {
  return client.files.create({ file: await toFile(Buffer.from(text), name), purpose: 'batch' });
}

/** Runs the task engine (moving the clock, so the batch's next poll is due) until the batch ends. */
export async function driveBatch(test: TestApp, clock: ManualClock, client: OpenAI, batchId: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    clock.advance(1_000);
    await test.context.tasks.runOnce();
    const batch = await client.batches.retrieve(batchId);
    if (['completed', 'failed', 'expired', 'cancelled'].includes(batch.status)) return batch;
    if (Date.now() > deadline) throw new Error(`batch ${batchId} still ${batch.status} after the test's time limit`);
  }
}

export async function readJsonl(client: OpenAI, fileId: string | null | undefined): Promise<Array<Record<string, any>>> {
  if (!fileId) return [];
  const response = await client.files.content(fileId);
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/** The batch's request log rows, straight from the store. */
export async function batchRows(gateway: Pick<SimulatedGateway, 'test'>, batchId: string) {
  await gateway.test.context.requestLog.flush();
  const rows = await gateway.test.context.store.db.selectFrom('requests').selectAll().where('batch_id', '=', batchId).orderBy('id').execute();
  return rows.map((row) => ({ id: row.id, status: row.status, cost: BigInt(row.cost), model: row.model, endpoint: row.endpoint }));
}
