import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { readAccountMoney, sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';
import { batchRows } from './batch-harness.js';

function request(customId: string, model: string, content: string, extra: Record<string, unknown> = {}) {
  return { custom_id: customId, params: { model, max_tokens: 50, messages: [{ role: 'user' as const, content }], ...extra } };
}

describe.each(testDatabases())('Anthropic Message Batches on $name', ({ url }) => {
  let gateway: SimulatedGateway;
  let clock: ManualClock;
  let anthropic: Anthropic;

  /** Runs the task engine (moving the clock, so the batch's next poll is due) until the batch has ended. */
  async function drive(id: string, client = anthropic) {
    const deadline = Date.now() + 20_000;
    for (;;) {
      clock.advance(1_000);
      await gateway.test.context.tasks.runOnce();
      const batch = await client.messages.batches.retrieve(id);
      if (batch.processing_status === 'ended') return batch;
      if (Date.now() > deadline) throw new Error(`message batch ${id} still ${batch.processing_status}`);
    }
  }

  async function resultsOf(id: string) {
    const results = [];
    for await (const result of await anthropic.messages.batches.results(id)) results.push(result);
    return results;
  }

  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    gateway = await startSimulatedGateway({ databaseUrl: url, clock, credits: 100 });
    // The SDK's default settings, pointed at the gateway by base URL.
    anthropic = new Anthropic({ baseURL: gateway.url, apiKey: gateway.key, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('creates, retrieves and streams the results of a batch over anthropic- and openai-wire models with the Anthropic SDK; each request costs the live price and the books add up', async () => {
    const before = await readAccountMoney(gateway);
    const requests = [
      request('from-anthropic', 'sim/anthropic-model', 'Say hello from Anthropic'),
      request('from-openai', 'sim/openai-model', 'Say hello from OpenAI'),
      // Well-formed for the batch, refused by the Messages decoder as the live request would be.
      { custom_id: 'bad', params: { model: 'sim/openai-model', max_tokens: 50, messages: 'not a list' } as never },
    ];
    const created = await anthropic.messages.batches.create({ requests });
    expect(created).toMatchObject({ type: 'message_batch', processing_status: 'in_progress', request_counts: { processing: 3, succeeded: 0, errored: 0, canceled: 0, expired: 0 }, ended_at: null, archived_at: null, cancel_initiated_at: null, results_url: null });
    expect(created.id).toMatch(/^msgbatch_/);
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(24 * 60 * 60 * 1000);
    // Before it ends there are no results: the SDK says so from the missing results_url.
    await expect(anthropic.messages.batches.results(created.id)).rejects.toThrow(/No batch `results_url`/);

    const done = await drive(created.id);
    expect(done.request_counts).toEqual({ processing: 0, succeeded: 2, errored: 1, canceled: 0, expired: 0 });
    expect(typeof done.ended_at).toBe('string');
    expect(done.results_url).toBe(`${gateway.url}/v1/messages/batches/${created.id}/results`);

    const results = await resultsOf(created.id);
    expect(results.map((result) => result.custom_id)).toEqual(['from-anthropic', 'from-openai', 'bad']);
    for (const result of results.slice(0, 2)) {
      expect(result.result.type).toBe('succeeded');
      if (result.result.type !== 'succeeded') continue;
      expect(result.result.message.type).toBe('message');
      expect(result.result.message.role).toBe('assistant');
      expect(result.result.message.content[0].type).toBe('text');
    }
    expect(results.map((result) => (result.result.type === 'succeeded' ? result.result.message.model : null))).toEqual(['sim/anthropic-model', 'sim/openai-model', null]);
    expect(results[2].result).toMatchObject({ type: 'errored', error: { type: 'error', error: { type: 'invalid_request_error' } } });

    // One request log row per request, tied to the batch; their costs are what the account was charged.
    const rows = await batchRows(gateway, created.id);
    expect(rows).toHaveLength(3);
    expect(rows.every((row) => row.endpoint === '/messages')).toBe(true);
    const after = await readAccountMoney(gateway);
    const charged = rows.reduce((sum, row) => sum + row.cost, 0n);
    expect(charged).toBeGreaterThan(0n);
    expect(after.usage - before.usage).toBe(charged);
    expect(after.reserved).toBe(before.reserved);
    const succeeded = rows.filter((row) => row.status === 'completed');
    expect(succeeded.map((row) => row.model).sort()).toEqual(['sim/anthropic-model', 'sim/openai-model']);

    // The same requests live cost exactly what their lines cost.
    for (const [index, model] of [[0, 'sim/anthropic-model'], [1, 'sim/openai-model']] as const) {
      const live = await sendJson(gateway, gateway.key, 'POST', '/v1/messages', requests[index].params);
      expect(live.status).toBe(200);
      await gateway.test.context.requestLog.flush();
      const liveRow = await gateway.test.context.store.db.selectFrom('requests').select('cost').where('id', '=', live.headers.get('x-request-id')!).executeTakeFirstOrThrow();
      expect(BigInt(liveRow.cost)).toBe(succeeded.find((row) => row.model === model)!.cost);
    }
  });

  it('cancels a batch before its requests run: they end canceled and nothing is charged', async () => {
    const before = await readAccountMoney(gateway);
    const created = await anthropic.messages.batches.create({ requests: [request('one', 'sim/anthropic-model', 'x'), request('two', 'sim/openai-model', 'y')] });
    const canceling = await anthropic.messages.batches.cancel(created.id);
    expect(canceling.processing_status).toBe('canceling');
    expect(typeof canceling.cancel_initiated_at).toBe('string');
    const done = await drive(created.id);
    expect(done.request_counts).toEqual({ processing: 0, succeeded: 0, errored: 0, canceled: 2, expired: 0 });
    expect(await resultsOf(created.id)).toEqual([
      { custom_id: 'one', result: { type: 'canceled' } },
      { custom_id: 'two', result: { type: 'canceled' } },
    ]);
    expect(await batchRows(gateway, created.id)).toEqual([]);
    const after = await readAccountMoney(gateway);
    expect(after.usage).toBe(before.usage);
    expect(after.reserved).toBe(before.reserved);
  });

  it('pages the list as Anthropic does (newest first, after_id, before_id, has_more, first_id, last_id), apart from OpenAI batches', async () => {
    const other = await gateway.test.createAccount({ credits: 10 });
    const client = new Anthropic({ baseURL: gateway.url, apiKey: other.key, maxRetries: 0 });
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) ids.push((await client.messages.batches.create({ requests: [request('a', 'sim/anthropic-model', 'x')] })).id);
    const first = await client.messages.batches.list({ limit: 2 });
    expect(first.data.map((batch) => batch.id)).toEqual([ids[2], ids[1]]);
    expect(first.has_more).toBe(true);
    expect([first.first_id, first.last_id]).toEqual([ids[2], ids[1]]);
    const older = await client.messages.batches.list({ limit: 2, after_id: ids[1] });
    expect(older.data.map((batch) => batch.id)).toEqual([ids[0]]);
    expect(older.has_more).toBe(false);
    const newer = await client.messages.batches.list({ limit: 1, before_id: ids[0] });
    expect(newer.data.map((batch) => batch.id)).toEqual([ids[1]]);
    expect(newer.has_more).toBe(true);
    // The SDK's auto-paging walks them all.
    const all: string[] = [];
    for await (const batch of client.messages.batches.list({ limit: 1 })) all.push(batch.id);
    expect(all).toEqual([...ids].reverse());
    // OpenAI's list does not show them.
    const openaiList = (await (await sendJson(gateway, other.key, 'GET', '/v1/batches')).json()) as { data: unknown[] };
    expect(openaiList.data).toEqual([]);
    for (const id of ids) await client.messages.batches.cancel(id);
    await gateway.test.context.tasks.runOnce();
  });

  it('keeps a batch to its account: another account gets 404 in Anthropic\'s error shape for retrieve, cancel and results', async () => {
    const created = await anthropic.messages.batches.create({ requests: [request('mine', 'sim/anthropic-model', 'mine')] });
    await drive(created.id);
    const other = await gateway.test.createAccount({ credits: 10 });
    const client = new Anthropic({ baseURL: gateway.url, apiKey: other.key, maxRetries: 0 });
    for (const attempt of [
      () => client.messages.batches.retrieve(created.id),
      () => client.messages.batches.cancel(created.id),
      () => client.messages.batches.results(created.id),
    ]) {
      const error = (await attempt().then(() => undefined, (caught: unknown) => caught)) as InstanceType<typeof Anthropic.NotFoundError>;
      expect(error).toBeInstanceOf(Anthropic.NotFoundError);
      expect(error.error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    }
    const direct = await sendJson(gateway, other.key, 'GET', `/v1/messages/batches/${created.id}/results`);
    expect(direct.status).toBe(404);
    expect((await client.messages.batches.list()).data).toEqual([]);
  });

  it('answers the SDK\'s beta client too (`?beta=true`, `anthropic-beta`)', async () => {
    const created = await anthropic.beta.messages.batches.create({ requests: [request('beta', 'sim/anthropic-model', 'hi')] });
    expect(created.type).toBe('message_batch');
    const deadline = Date.now() + 20_000;
    let batch = await anthropic.beta.messages.batches.retrieve(created.id);
    while (batch.processing_status !== 'ended' && Date.now() < deadline) {
      clock.advance(1_000);
      await gateway.test.context.tasks.runOnce();
      batch = await anthropic.beta.messages.batches.retrieve(created.id);
    }
    const results = [];
    for await (const result of await anthropic.beta.messages.batches.results(created.id)) results.push(result);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ custom_id: 'beta', result: { type: 'succeeded', message: { type: 'message' } } });
  });

  it('expires a batch not run within its 24 hours: its requests end expired, uncharged, counted apart from errors', async () => {
    const before = await readAccountMoney(gateway);
    const created = await anthropic.messages.batches.create({ requests: [request('late-1', 'sim/anthropic-model', 'x'), request('late-2', 'sim/openai-model', 'y')] });
    clock.advance(25 * 60 * 60 * 1000);
    const done = await drive(created.id);
    expect(done.request_counts).toEqual({ processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 2 });
    expect(await resultsOf(created.id)).toEqual([
      { custom_id: 'late-1', result: { type: 'expired' } },
      { custom_id: 'late-2', result: { type: 'expired' } },
    ]);
    expect(await batchRows(gateway, created.id)).toEqual([]);
    expect((await readAccountMoney(gateway)).usage).toBe(before.usage);
  });

  it('refuses bad requests at creation with a 400 naming the field', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ requests: [] }, /requests/],
      [{ requests: [request('same', 'sim/anthropic-model', 'x'), request('same', 'sim/anthropic-model', 'y')] }, /requests\.1\.custom_id/],
      [{ requests: [request('x', 'no/such-model', 'x')] }, /requests\.0\.params\.model/],
      [{ requests: [request('x', 'sim/anthropic-model', 'x', { stream: true })] }, /requests\.0\.params\.stream/],
      [{ requests: [request('has space', 'sim/anthropic-model', 'x')] }, /custom_id/],
    ];
    for (const [body, message] of cases) {
      const response = await sendJson(gateway, gateway.key, 'POST', '/v1/messages/batches', body);
      expect(response.status).toBe(400);
      const error = (await response.json()) as { type: string; error: { type: string; message: string } };
      expect(error.type).toBe('error');
      expect(error.error.type).toBe('invalid_request_error');
      expect(error.error.message).toMatch(message);
    }
  });
});
