import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

// POST /v1/messages/count_tokens through the gateway with the Anthropic SDK: Anthropic's own
// count on an anthropic-wire model (the simulator counts as its usage reports), the gateway's
// estimate elsewhere and when the provider fails, and a header saying which.
describe('POST /v1/messages/count_tokens', () => {
  let gateway: SimulatedGateway;
  let client: Anthropic;

  const conversation = {
    system: 'You are terse.',
    tools: [{ name: 'Bash', description: 'Runs a command', input_schema: { type: 'object' as const, properties: { command: { type: 'string' } } } }],
    messages: [
      { role: 'user' as const, content: 'Count the words in this sentence, please.' },
      { role: 'assistant' as const, content: 'Nine words.' },
      { role: 'user' as const, content: 'And now these five words?' },
    ],
  };

  beforeAll(async () => {
    gateway = await startSimulatedGateway({ credits: 100 });
    client = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
  });
  afterAll(async () => gateway?.close());
  beforeEach(() => gateway.simulator.reset());

  it("asks an anthropic-wire model's provider, which counts what its usage will report", async () => {
    const { data, response } = await client.beta.messages
      .countTokens({ model: 'sim/anthropic-model', ...conversation, betas: ['context-management-2025-06-27'] }, { headers: { 'anthropic-version': '2023-01-01' } })
      .withResponse();
    expect(response.headers.get('x-switchyard-token-count')).toBe('provider');

    const sent = gateway.simulator.lastRequest('anthropic')!;
    expect(sent.path).toBe('/anthropic/v1/messages/count_tokens');
    const body = sent.body as Record<string, unknown>;
    expect(body.model).toBe('claude-sim');
    expect(body).not.toHaveProperty('max_tokens');
    expect(body).not.toHaveProperty('stream');
    expect(body.tools).toHaveLength(1);
    // The client's headers, as its SDK sent them (the beta client adds token counting's beta).
    expect(sent.headers['anthropic-beta']).toBe('context-management-2025-06-27,token-counting-2024-11-01');
    expect(sent.headers['anthropic-version']).toBe('2023-01-01');

    // The simulator counts 1 token a word plus 3 a message (system included): the same request,
    // sent for real, reports exactly that as its input.
    const words = ['You are terse.', 'Count the words in this sentence, please.', 'Nine words.', 'And now these five words?'].join(' ').split(' ').length;
    expect(data.input_tokens).toBe(words + 4 * 3);
    const message = await client.messages.create({ model: 'sim/anthropic-model', max_tokens: 50, ...conversation });
    expect(message.usage.input_tokens).toBe(data.input_tokens);
  });

  it('counts with the gateway tokenizer on a gemini-wire model, without calling the provider', async () => {
    const { data, response } = await client.messages.countTokens({ model: 'sim/gemini-model', ...conversation }).withResponse();
    expect(response.headers.get('x-switchyard-token-count')).toBe('estimated');
    expect(data.input_tokens).toBeGreaterThan(0);
    expect(gateway.simulator.stats().requests).toBe(0);
  });

  it('counts any text: special-token strings and a long run without punctuation', async () => {
    // Both failed the estimate before: the first was refused by the tokenizer, the second took
    // minutes of its worker (byte-pair merging is quadratic in a piece's length).
    const run = '的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年'.repeat(1_000);
    const { data, response } = await client.messages
      .countTokens({ model: 'sim/gemini-model', messages: [{ role: 'user', content: `Explain <|endoftext|> and <|im_start|>. ${run}` }] })
      .withResponse();
    expect(response.headers.get('x-switchyard-token-count')).toBe('estimated');
    expect(data.input_tokens).toBeGreaterThan(15_000);
    expect(data.input_tokens).toBeLessThan(60_000);
  });

  it('falls back to the estimate when the provider fails, and says so', async () => {
    gateway.simulator.setFault({ match: { protocol: 'anthropic' }, fault: { status: 500 }, times: 1 });
    const { data, response } = await client.messages.countTokens({ model: 'sim/anthropic-model', ...conversation }).withResponse();
    expect(response.headers.get('x-switchyard-token-count')).toBe('estimated');
    expect(gateway.simulator.stats().requests).toBe(1);
    const estimate = await client.messages.countTokens({ model: 'sim/gemini-model', ...conversation });
    expect(data.input_tokens).toBe(estimate.input_tokens);
  });

  it('is refused by the simulator with max_tokens, as Anthropic refuses it', async () => {
    const response = await fetch(`${gateway.simulator.url}/anthropic/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sim-key' },
      body: JSON.stringify({ model: 'claude-sim', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain('max_tokens');
  });
});
