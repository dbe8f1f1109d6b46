import Anthropic from '@anthropic-ai/sdk';
import { sql } from 'kysely';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSseEvents } from '../helpers/read-sse.js';
import { sendJson, simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * The native pass-through (src/generation/plan-pass-through.ts): a Messages request to an
 * anthropic-wire model and a Chat Completions request to an openai-wire model reach the provider
 * byte for byte as the client sent them, but for the fields the gateway must set; the answer
 * comes back as the provider sent it, but for the gateway's id, model and cost; and the charge is
 * exactly the translated path's. Bodies are sent as the official SDKs send them (compact JSON).
 */
const catalog = (simulatorUrl: string) =>
  simulatedCatalogYaml(simulatorUrl)
    .replaceAll('max_completion_tokens: 1000', 'max_completion_tokens: 64000')
    .replaceAll('tools, tool_choice]', 'tools, tool_choice, reasoning]');

const messagesBody = {
  model: 'sim/anthropic-model',
  max_tokens: 2048,
  metadata: { user_id: 'user_42' },
  system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
  tools: [{ name: 'Bash', description: 'Runs a command.', defer_loading: true, input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } }],
  tool_choice: { type: 'none' },
  messages: [{ role: 'user', content: [{ type: 'text', text: 'say hi', cache_control: { type: 'ephemeral' } }] }],
  temperature: 0.5,
};

const chatBody = {
  model: 'sim/openai-model',
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'say hi', name: 'ada' },
  ],
  max_completion_tokens: 300,
  temperature: 0.2,
  prompt_cache_key: 'session-7',
};

async function chargeOf(gateway: SimulatedGateway, requestId: string): Promise<{ ledger: bigint; logged: bigint; prompt: number; completion: number }> {
  const { db } = gateway.test.context.store;
  // The row commits with its charge in the ledger's next batch.
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const row = await db.selectFrom('requests').selectAll().where('id', '=', requestId).executeTakeFirst();
    if (row && row.status !== 'started') {
      const charged = await sql<{ total: string | number | bigint | null }>`select sum(amount) as total from ledger_entries where request_id = ${requestId} and kind = 'charge'`.execute(db);
      return { ledger: BigInt(charged.rows[0].total ?? 0), logged: BigInt(row.cost), prompt: Number(row.prompt_tokens), completion: Number(row.completion_tokens) };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no settled request log row for ${requestId}`);
}

let relaying: SimulatedGateway;
let translating: SimulatedGateway;
beforeAll(async () => {
  relaying = await startSimulatedGateway({ catalogYaml: catalog });
  translating = await startSimulatedGateway({ catalogYaml: catalog, configure: (config) => (config.server.passThrough = false) });
});
afterAll(async () => {
  await relaying?.close();
  await translating?.close();
});

describe('Messages → an anthropic-wire model', () => {
  it('reaches the provider byte-identical but for the model name, and answers with the gateway id, model and cost', async () => {
    relaying.simulator.reset();
    const response = await sendJson(relaying, relaying.key, 'POST', '/v1/messages', messagesBody, { 'anthropic-beta': 'context-management-2025-06-27' });
    expect(response.status).toBe(200);
    const received = relaying.simulator.lastRequest('anthropic')!;
    expect(received.rawBody).toBe(JSON.stringify({ ...messagesBody, model: 'claude-sim' }));
    expect(received.headers['anthropic-beta']).toBe('context-management-2025-06-27');
    const message = (await response.json()) as { id: string; model: string; usage: { input_tokens: number; output_tokens: number; cost: number } };
    const requestId = response.headers.get('x-request-id')!;
    expect(message.id).toBe(requestId);
    expect(message.model).toBe('sim/anthropic-model');
    const charge = await chargeOf(relaying, requestId);
    expect(charge.ledger).toBe(charge.logged);
    expect(message.usage.cost).toBe(Number(charge.ledger) / 1e9);
    expect([charge.prompt, charge.completion]).toEqual([message.usage.input_tokens, message.usage.output_tokens]);
  });

  it('streams the provider events through to the SDK, with the cost on message_delta, charging what the translated path charges', async () => {
    relaying.simulator.reset();
    const client = new Anthropic({ apiKey: relaying.key, baseURL: relaying.url, maxRetries: 0 });
    const stream = client.messages.stream(messagesBody as unknown as Anthropic.MessageStreamParams);
    const message = await stream.finalMessage();
    const received = relaying.simulator.lastRequest('anthropic')!;
    expect(received.rawBody).toBe(JSON.stringify({ ...messagesBody, model: 'claude-sim', stream: true }));
    const requestId = (await stream.withResponse()).response.headers.get('x-request-id')!;
    expect(message.id).toBe(requestId);
    expect(message.model).toBe('sim/anthropic-model');
    expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^Simulated reply from /) });
    const relayed = await chargeOf(relaying, requestId);
    expect(relayed.ledger).toBe(relayed.logged);

    const translated = await sendJson(translating, translating.key, 'POST', '/v1/messages', { ...messagesBody, stream: true });
    await readSseEvents(translated);
    const reference = await chargeOf(translating, translated.headers.get('x-request-id')!);
    expect(relayed).toEqual(reference);
    // The translated path re-encodes: cache breakpoints become Anthropic's request-level cache_control.
    expect(translating.simulator.lastRequest('anthropic')!.rawBody).not.toBe(JSON.stringify({ ...messagesBody, model: 'claude-sim', stream: true }));
  });

  it('lowers max_tokens to the endpoint cap in place, and strips a reasoning signature of its own tag', async () => {
    relaying.simulator.reset();
    const signed = {
      model: 'sim/anthropic-model',
      max_tokens: 100_000,
      messages: [
        { role: 'user', content: 'think' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 'anthropic:sig-1' }, { type: 'text', text: 'ok' }] },
        { role: 'user', content: 'again' },
      ],
    };
    const response = await sendJson(relaying, relaying.key, 'POST', '/v1/messages', { ...signed, max_tokens: 30_000 });
    expect(response.status).toBe(200);
    const expected = JSON.parse(JSON.stringify(signed)) as typeof signed;
    expected.model = 'claude-sim';
    expected.max_tokens = 30_000;
    (expected.messages[1].content as Array<{ signature?: string }>)[0].signature = 'sig-1';
    expect(relaying.simulator.lastRequest('anthropic')!.rawBody).toBe(JSON.stringify(expected));
  });

  it('translates instead when the body carries what only translation can honour (a signature of another protocol)', async () => {
    relaying.simulator.reset();
    const body = {
      model: 'sim/anthropic-model',
      max_tokens: 200,
      messages: [
        { role: 'user', content: 'think' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 'gemini:abc' }, { type: 'text', text: 'ok' }] },
        { role: 'user', content: 'again' },
      ],
    };
    const response = await sendJson(relaying, relaying.key, 'POST', '/v1/messages', body);
    expect(response.status).toBe(200);
    const sent = relaying.simulator.lastRequest('anthropic')!.rawBody;
    expect(sent).not.toContain('gemini:abc');
    expect(sent).not.toContain('"signature"');
  });
});

describe('Chat Completions → an openai-wire model', () => {
  it('reaches the provider byte-identical but for the model name, and answers with the gateway id, model and cost', async () => {
    relaying.simulator.reset();
    const client = new OpenAI({ apiKey: relaying.key, baseURL: `${relaying.url}/v1`, maxRetries: 0 });
    const { data: completion, response } = await client.chat.completions.create(chatBody as OpenAI.ChatCompletionCreateParamsNonStreaming).withResponse();
    expect(relaying.simulator.lastRequest('openai')!.rawBody).toBe(JSON.stringify({ ...chatBody, model: 'gpt-sim' }));
    const requestId = response.headers.get('x-request-id')!;
    expect(completion.id).toBe(requestId);
    expect(completion.model).toBe('sim/openai-model');
    // The provider's own fields come through (the translated path sets null here).
    expect(completion.system_fingerprint).toBe('fp_simulator');
    const charge = await chargeOf(relaying, requestId);
    expect(charge.ledger).toBe(charge.logged);
    expect((completion.usage as unknown as { cost: number }).cost).toBe(Number(charge.ledger) / 1e9);
    expect([charge.prompt, charge.completion]).toEqual([completion.usage!.prompt_tokens, completion.usage!.completion_tokens]);
  });

  it('streams through the SDK helper, asking the provider for usage, with the cost on the usage chunk and the same charge as translated', async () => {
    relaying.simulator.reset();
    const client = new OpenAI({ apiKey: relaying.key, baseURL: `${relaying.url}/v1`, maxRetries: 0 });
    const stream = client.chat.completions.stream({ ...chatBody, stream: true } as OpenAI.ChatCompletionCreateParamsStreaming);
    const completion = await stream.finalChatCompletion();
    // The gateway's one addition: usage in the stream, which it needs to charge.
    expect(relaying.simulator.lastRequest('openai')!.rawBody).toBe(JSON.stringify({ ...chatBody, model: 'gpt-sim', stream: true, stream_options: { include_usage: true } }));
    expect(completion.choices[0].message.content).toMatch(/^Simulated reply from /);
    expect(completion.model).toBe('sim/openai-model');
    const raw = await sendJson(relaying, relaying.key, 'POST', '/v1/chat/completions', { ...chatBody, stream: true });
    const requestId = raw.headers.get('x-request-id')!;
    const chunks = (await readSseEvents(raw)).filter((event) => event.data !== '[DONE]').map((event) => JSON.parse(event.data) as { id: string; model: string; usage?: { cost?: number } | null });
    expect(new Set(chunks.map((chunk) => chunk.id))).toEqual(new Set([requestId]));
    expect(new Set(chunks.map((chunk) => chunk.model))).toEqual(new Set(['sim/openai-model']));
    // Usage only at the end, never `usage: null` in between.
    expect(chunks.slice(0, -1).every((chunk) => !('usage' in chunk))).toBe(true);
    const relayed = await chargeOf(relaying, requestId);
    expect(chunks.at(-1)!.usage!.cost).toBe(Number(relayed.ledger) / 1e9);
    expect(relayed.ledger).toBe(relayed.logged);

    const translated = await sendJson(translating, translating.key, 'POST', '/v1/chat/completions', { ...chatBody, stream: true });
    await readSseEvents(translated);
    expect(relayed).toEqual(await chargeOf(translating, translated.headers.get('x-request-id')!));
  });

  it("keeps the gateway's own fields from the provider, and translates an OpenRouter-style reasoning object", async () => {
    relaying.simulator.reset();
    const routed = await sendJson(relaying, relaying.key, 'POST', '/v1/chat/completions', { ...chatBody, models: ['sim/openai-model'], provider: { sort: 'price' } });
    expect(routed.status).toBe(200);
    expect(relaying.simulator.lastRequest('openai')!.rawBody).toBe(JSON.stringify({ ...chatBody, model: 'gpt-sim' }));

    const reasoning = await sendJson(relaying, relaying.key, 'POST', '/v1/chat/completions', { model: 'sim/openai-model', messages: chatBody.messages, reasoning: { effort: 'low' } });
    expect(reasoning.status).toBe(200);
    const sent = JSON.parse(relaying.simulator.lastRequest('openai')!.rawBody) as Record<string, unknown>;
    expect(sent.reasoning).toBeUndefined();
    expect(sent.reasoning_effort).toBe('low');
  });
});
