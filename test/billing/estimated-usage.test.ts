import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTextTokens } from '../../src/billing/count-tokens.js';
import { readSseEvents } from '../helpers/read-sse.js';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/** A provider that reports no usage: the gateway counts the tokens itself and marks the request estimated. */
describe('usage the provider did not report', () => {
  let gateway: SimulatedGateway;
  beforeAll(async () => {
    gateway = await startSimulatedGateway();
  });
  afterAll(async () => gateway?.close());

  const post = (body: unknown) =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  async function loggedRow(id: string) {
    await gateway.test.context.requestLog.flush();
    return gateway.test.context.store.db.selectFrom('requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  it('counts a non-streamed answer with the tokenizer, charges it, and records it as estimated', async () => {
    const response = await post({ model: 'sim/openai-model', messages: [{ role: 'user', content: 'count me [[sim:no_usage]]' }] });
    const body = (await response.json()) as any;
    expect(response.status).toBe(200);
    const text = body.choices[0].message.content as string;
    expect(body.usage.completion_tokens).toBe(await countTextTokens(text));
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
    expect(body.usage.cost).toBeGreaterThan(0);
    const row = await loggedRow(body.id);
    expect(Number(row.estimated)).toBe(1);
    expect(BigInt(row.cost)).toBe(BigInt(Math.round(body.usage.cost * 1e9)));
  });

  it('counts a stream whose provider sent no usage, with usage still in the last chunk', async () => {
    const response = await post({ model: 'sim/openai-model', stream: true, messages: [{ role: 'user', content: 'stream me [[sim:no_usage]]' }] });
    const events = await readSseEvents(response);
    const chunks = events.filter((event) => event.data !== '[DONE]').map((event) => JSON.parse(event.data));
    const text = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
    const usage = chunks.at(-1).usage;
    expect(usage.completion_tokens).toBe(await countTextTokens(text));
    expect(usage.cost).toBeGreaterThan(0);
    const row = await loggedRow(chunks[0].id);
    expect(Number(row.estimated)).toBe(1);
  });
});
