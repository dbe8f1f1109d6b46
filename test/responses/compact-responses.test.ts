import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAccountMoney, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

const wires = [
  { wire: 'openai', model: 'sim/openai-model' },
  { wire: 'anthropic', model: 'sim/anthropic-model' },
  { wire: 'gemini', model: 'sim/gemini-model' },
] as const;

/**
 * `responses.compact` with the official `openai` SDK: the gateway compacts with the model itself
 * (a charged summarising turn), and the compacted window — the user's messages and one
 * `compaction` item — continues on every wire, whichever wire compacted it.
 */
describe('POST /v1/responses/compact', () => {
  let gateway: SimulatedGateway;
  let client: OpenAI;
  const upstreamBody = () => JSON.stringify(gateway.simulator.received().at(-1)?.body);

  beforeAll(async () => {
    gateway = await startSimulatedGateway({ credits: 100 });
    client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it.each(wires)('compacts on the $wire wire, charged like a request, and every wire continues from the compacted items', async ({ model }) => {
    const before = await readAccountMoney(gateway);
    const compacted = await client.responses.compact({
      model,
      input: [
        { role: 'user', content: 'We agreed to launch on Tuesday.' },
        { role: 'assistant', content: 'Understood: the launch is Tuesday, support goes first.' },
        { role: 'user', content: 'Also notify finance.' },
      ],
    });
    // The summarising turn went to the model, with the whole conversation.
    expect(upstreamBody()).toContain('support goes first');
    await gateway.test.context.requestLog.flush();
    const afterCompact = await readAccountMoney(gateway);
    const cost = BigInt(Math.round(((compacted.usage as { cost?: number }).cost ?? 0) * 1e9));
    expect(cost).toBeGreaterThan(0n);
    expect(afterCompact.usage - before.usage).toBe(cost);

    expect(compacted.object).toBe('response.compaction');
    expect(compacted.output.map((item) => item.type)).toEqual(['message', 'message', 'compaction']);
    expect(compacted.output.slice(0, 2).map((item) => (item as { role: string }).role)).toEqual(['user', 'user']);
    const compaction = compacted.output[2] as OpenAI.Responses.ResponseCompactionItem;
    expect(compaction.encrypted_content.length).toBeGreaterThan(0);

    for (const next of wires) {
      const response = await client.responses.create({ model: next.model, input: [...(compacted.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'What is next?' }] });
      expect(response.status).toBe('completed');
      const upstream = upstreamBody();
      expect(upstream).toContain('Summary of the earlier part of this conversation');
      expect(upstream).toContain('We agreed to launch on Tuesday.');
      expect(upstream).toContain('What is next?');
      // The assistant's turn is in the summary now, not repeated as itself.
      expect(upstream).not.toContain('support goes first');
    }
  });

  it('compacts the stored chain that previous_response_id names', async () => {
    const first = await client.responses.create({ model: 'sim/anthropic-model', input: 'The code word is cobalt.' });
    const compacted = await client.responses.compact({ model: 'sim/gemini-model', previous_response_id: first.id });
    expect(upstreamBody()).toContain('The code word is cobalt.');
    expect(compacted.output.map((item) => item.type)).toEqual(['message', 'compaction']);
  });

  it('refuses a compaction the gateway did not produce, a missing model and unknown fields', async () => {
    await expect(
      client.responses.create({ model: 'sim/openai-model', input: [{ type: 'compaction', encrypted_content: 'gAAAAB-openai-blob' }, { role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 400, param: 'input[0].encrypted_content' });
    await expect(client.post('/responses/compact', { body: { input: 'x' } })).rejects.toMatchObject({ status: 400, param: 'model' });
    await expect(client.post('/responses/compact', { body: { model: 'sim/openai-model', input: 'x', stream: true } })).rejects.toMatchObject({ status: 400, param: 'stream' });
    await expect(client.responses.compact({ model: 'sim/openai-model', previous_response_id: 'resp_missing' })).rejects.toMatchObject({ status: 404, code: 'previous_response_not_found' });
  });
});
