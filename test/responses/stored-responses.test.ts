import OpenAI from 'openai';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { readAccountMoney, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';

/**
 * Stored responses with the official `openai` SDK at its default settings: `store` defaults to
 * true, `previous_response_id` continues on any model (protocol changes included), and
 * retrieve, delete and input_items answer in OpenAI's shapes, scoped to the account and key.
 */
describe.each(testDatabases())('stored responses on $name', (database) => {
  let gateway: SimulatedGateway;
  let clock: ManualClock;
  let client: OpenAI;
  const flush = () => gateway.test.context.requestLog.flush();

  const clientFor = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const lastUpstreamBody = () => JSON.stringify(gateway.simulator.received().at(-1)?.body);
  const storedCount = async () => Number((await gateway.test.context.store.db.selectFrom('stored_responses').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const newOrdinaryKey = async (managementKey: string) => {
    const response = await gateway.test.app.inject({ method: 'POST', url: '/v1/keys', headers: { authorization: `Bearer ${managementKey}` }, payload: { name: 'worker' } });
    return (response.json() as { key: string }).key;
  };

  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    gateway = await startSimulatedGateway({ databaseUrl: database.url, clock, credits: 100 });
    client = clientFor(gateway.key);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  /** Three turns, each on its model; returns the responses. Each turn's upstream request must carry every earlier turn. */
  async function chain(models: [string, string, string], stream: boolean) {
    const words = ['amber', 'basil', 'cedar'];
    const responses: OpenAI.Responses.Response[] = [];
    for (const [turn, model] of models.entries()) {
      const request = { model, input: `remember ${words[turn]}`, ...(turn > 0 ? { previous_response_id: responses[turn - 1].id } : {}) };
      const response: OpenAI.Responses.Response = stream ? await client.responses.stream(request).finalResponse() : await client.responses.create(request);
      expect(response.status).toBe('completed');
      expect((response as unknown as { store: boolean }).store).toBe(true);
      expect(response.previous_response_id).toBe(turn > 0 ? responses[turn - 1].id : null);
      const upstream = lastUpstreamBody();
      for (let earlier = 0; earlier <= turn; earlier += 1) expect(upstream).toContain(`remember ${words[earlier]}`);
      // The earlier answers went upstream too (the simulator's replies name the model that wrote them).
      for (let earlier = 0; earlier < turn; earlier += 1) expect(upstream).toContain(responses[earlier].output_text.slice(0, 40));
      responses.push(response);
    }
    return responses;
  }

  it.each([
    { wire: 'openai', model: 'sim/openai-model' },
    { wire: 'anthropic', model: 'sim/anthropic-model' },
    { wire: 'gemini', model: 'sim/gemini-model' },
  ])('chains three turns with previous_response_id on the $wire wire, each charged once', async ({ model }) => {
    const before = await readAccountMoney(gateway);
    const responses = await chain([model, model, model], false);
    await flush();
    const after = await readAccountMoney(gateway);
    const charged = responses.reduce((sum, response) => sum + BigInt(Math.round(((response.usage as { cost?: number }).cost ?? 0) * 1e9)), 0n);
    expect(charged).toBeGreaterThan(0n);
    expect(after.usage - before.usage).toBe(charged);
    const log = await client.get<{ data: Array<{ id: string }> }>('/requests?limit=3');
    expect(log.data.map((row) => row.id).sort()).toEqual(responses.map((response) => response.id).sort());
  });

  it('continues across providers and protocols: openai → anthropic → gemini, streaming, each turn charged once', async () => {
    const before = await readAccountMoney(gateway);
    const responses = await chain(['sim/openai-model', 'sim/anthropic-model', 'sim/gemini-model'], true);
    await flush();
    const charged = responses.reduce((sum, response) => sum + BigInt(Math.round(((response.usage as { cost?: number }).cost ?? 0) * 1e9)), 0n);
    expect((await readAccountMoney(gateway)).usage - before.usage).toBe(charged);
    expect(responses.map((response) => response.model)).toEqual(['sim/openai-model', 'sim/anthropic-model', 'sim/gemini-model']);
    const received = gateway.simulator.received().slice(-3).map((request) => request.protocol);
    expect(received).toEqual(['openai', 'anthropic', 'gemini']);
  });

  it('retrieves a stored response, lists its input items in OpenAI’s shape, and deletes it', async () => {
    const first = await client.responses.create({ model: 'sim/openai-model', input: 'first words', metadata: { topic: 'x' } });
    const second = await client.responses.create({ model: 'sim/anthropic-model', previous_response_id: first.id, input: [{ role: 'user', content: 'second words' }] });
    const retrieved = await client.responses.retrieve(second.id);
    expect(retrieved).toEqual({ ...second, output_text: retrieved.output_text });
    expect(retrieved.previous_response_id).toBe(first.id);

    const items = await client.responses.inputItems.list(second.id, { order: 'asc' });
    expect(items.data.map((item) => item.type)).toEqual(['message', 'message', 'message']);
    const roles = items.data.map((item) => (item as { role: string }).role);
    expect(roles).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(items.data[0])).toContain('first words');
    expect(items.data.every((item) => typeof item.id === 'string' && item.id.length > 0)).toBe(true);
    const page = await client.get<{ data: Array<{ id: string }>; first_id: string; last_id: string; has_more: boolean; object: string }>(
      `/responses/${second.id}/input_items?limit=2`,
    );
    expect(page).toMatchObject({ object: 'list', has_more: true });
    expect(page.data.map((item) => item.id)).toEqual([items.data[2].id, items.data[1].id]);
    const rest = await client.get<{ data: Array<{ id: string }>; has_more: boolean }>(`/responses/${second.id}/input_items?limit=2&after=${page.last_id}`);
    expect(rest).toMatchObject({ has_more: false, data: [{ id: items.data[0].id }] });

    await client.responses.delete(second.id);
    await expect(client.responses.retrieve(second.id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    await expect(client.responses.create({ model: 'sim/openai-model', previous_response_id: second.id, input: 'more' })).rejects.toMatchObject({
      status: 404,
      code: 'previous_response_not_found',
      param: 'previous_response_id',
    });
    await expect(client.responses.delete(second.id)).rejects.toMatchObject({ status: 404 });
  });

  it('answers an unknown id, another account’s id and another key’s id with previous_response_not_found', async () => {
    const mine = await client.responses.create({ model: 'sim/gemini-model', input: 'private words' });
    const other = await gateway.test.createAccount({ credits: 10 });
    const stranger = clientFor(other.key);
    const before = await readAccountMoney(gateway, other.accountId);
    for (const id of [mine.id, 'resp_unknown']) {
      await expect(stranger.responses.create({ model: 'sim/openai-model', previous_response_id: id, input: 'go on' })).rejects.toMatchObject({
        status: 404,
        code: 'previous_response_not_found',
      });
    }
    await expect(stranger.responses.retrieve(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(stranger.get(`/responses/${mine.id}/input_items`)).rejects.toMatchObject({ status: 404 });
    await expect(stranger.responses.delete(mine.id)).rejects.toMatchObject({ status: 404 });
    expect(await readAccountMoney(gateway, other.accountId)).toEqual(before);

    // An ordinary key of the same account sees only its own, as on /requests; the management key sees all.
    const worker = clientFor(await newOrdinaryKey(gateway.key));
    await expect(worker.responses.retrieve(mine.id)).rejects.toMatchObject({ status: 404 });
    const own = await worker.responses.create({ model: 'sim/openai-model', input: 'worker words' });
    expect((await worker.responses.retrieve(own.id)).id).toBe(own.id);
    expect((await client.responses.retrieve(own.id)).id).toBe(own.id);
  });

  it('keeps nothing with store: false, and encrypted reasoning still works statelessly', async () => {
    const response = await client.responses.create({ model: 'sim/anthropic-model', input: 'stateless words', store: false, include: ['reasoning.encrypted_content'] });
    expect((response as unknown as { store: boolean }).store).toBe(false);
    await expect(client.responses.retrieve(response.id)).rejects.toMatchObject({ status: 404 });
    const next = await client.responses.create({ model: 'sim/anthropic-model', store: false, input: [...(response.output as never[]), { role: 'user', content: 'and then' }] });
    expect(next.status).toBe('completed');
  });

  it('sweeps responses past the retention period (30 days by default), by the injected clock', async () => {
    const old = await client.responses.create({ model: 'sim/openai-model', input: 'old words' });
    expect(await storedCount()).toBeGreaterThan(0);
    clock.advance(30 * 86_400_000 + 1000);
    // Expired is gone at once for readers, before any sweep.
    await expect(client.responses.retrieve(old.id)).rejects.toMatchObject({ status: 404 });
    await expect(client.responses.create({ model: 'sim/openai-model', previous_response_id: old.id, input: 'x' })).rejects.toMatchObject({ code: 'previous_response_not_found' });
    // The next write sweeps the expired rows (at most once a minute of the injected clock), beside the writers.
    const fresh = await client.responses.create({ model: 'sim/openai-model', input: 'fresh words' });
    const ids = async () => (await gateway.test.context.store.db.selectFrom('stored_responses').select('id').execute()).map((row) => row.id);
    const deadline = Date.now() + 5000;
    while ((await ids()).length > 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await ids()).toEqual([fresh.id]);
  });
});

describe('a response over the stored-response limit', () => {
  it('is answered but not kept, and neither its text nor its input reaches the log', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    const gateway = await startSimulatedGateway({
      logger,
      configure: (config) => {
        config.server.responses = { retentionDays: 30, maxStoredBytes: 2048 };
      },
    });
    try {
      const client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
      const small = await client.responses.create({ model: 'sim/openai-model', input: 'short' });
      expect((await client.responses.retrieve(small.id)).id).toBe(small.id);
      const large = await client.responses.create({ model: 'sim/openai-model', input: 'confidential '.repeat(300) });
      expect(large.status).toBe('completed');
      await expect(client.responses.retrieve(large.id)).rejects.toMatchObject({ status: 404 });
      await expect(client.responses.create({ model: 'sim/openai-model', previous_response_id: large.id, input: 'x' })).rejects.toMatchObject({ code: 'previous_response_not_found' });
      const log = lines.join('');
      expect(log).toContain('response not stored: larger than the stored-response limit');
      expect(log).not.toContain('confidential');
    } finally {
      await gateway.close();
    }
  });
});
