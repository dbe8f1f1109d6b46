import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * Fields of the Anthropic SDK's beta request types that only Claude has — `thinking.block_binding`,
 * `thinking: {type: "between_tools"}` and `output_config.task_budget` — sent with the SDK's beta
 * client: native on an anthropic-wire model, whether the body is relayed as sent or translated;
 * on other protocols hints (block_binding, task_budget) or thinking off (between_tools), never a 400.
 */
// Models that think, and take a JSON schema (which sends a Messages body with output_format to translation).
const catalog = (simulatorUrl: string) =>
  simulatedCatalogYaml(simulatorUrl).replace(/(model: (?:gpt-sim|claude-sim|gemini-sim)\n.*\n\s+supported_parameters: \[[^\]]*)\]/g, '$1, reasoning, response_format]');

const betas = ['task-budgets-2026-03-13'];

const adaptiveBody = (model: string) => ({
  model,
  max_tokens: 512,
  thinking: { type: 'adaptive' as const, display: 'omitted' as const, block_binding: { prefix_mismatch_behavior: 'drop_block' as const } },
  output_config: { effort: 'high' as const, task_budget: { type: 'tokens' as const, total: 64000, remaining: 50000 } },
  messages: [{ role: 'user' as const, content: 'say hi' }],
});

const betweenToolsBody = (model: string) => ({
  model,
  max_tokens: 512,
  thinking: { type: 'between_tools' as const },
  tools: [{ name: 'Bash', description: 'Runs a command.', input_schema: { type: 'object' as const, properties: { command: { type: 'string' } }, required: ['command'] } }],
  messages: [{ role: 'user' as const, content: 'list the files' }],
});

/** Thinking turned off, with an effort: Anthropic's effort also governs the answer's length and tool calls. */
const disabledBody = (model: string) => ({
  model,
  max_tokens: 512,
  thinking: { type: 'disabled' as const },
  output_config: { effort: 'low' as const },
  messages: [{ role: 'user' as const, content: 'say hi' }],
});

/** The beta's `updates` display (short progress updates in place of the thinking summary). */
const updatesBody = (model: string) => ({
  model,
  max_tokens: 512,
  thinking: { type: 'adaptive' as const, display: 'updates' as const },
  messages: [{ role: 'user' as const, content: 'say hi' }],
});

type BetaParams = Anthropic.Beta.Messages.MessageCreateParamsNonStreaming;

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

const clientOf = (gateway: SimulatedGateway) => new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });

/** Sends `body` with the SDK's beta client and answers the request the simulator received on `protocol`. */
async function sendThrough(gateway: SimulatedGateway, body: object, protocol: 'openai' | 'anthropic' | 'gemini') {
  gateway.simulator.reset();
  const message = await clientOf(gateway).beta.messages.create(body as BetaParams);
  expect(message.role).toBe('assistant');
  const received = gateway.simulator.lastRequest(protocol);
  if (!received) return expect.fail('the simulator received no request');
  return received;
}

describe('Claude-only thinking and output_config fields on an anthropic-wire model', () => {
  it('are relayed byte for byte, with the betas, when the body goes as sent', async () => {
    for (const body of [adaptiveBody, betweenToolsBody]) {
      relaying.simulator.reset();
      const message = await clientOf(relaying).beta.messages.create({ ...body('sim/anthropic-model'), betas } as BetaParams);
      expect(message.role).toBe('assistant');
      const received = relaying.simulator.lastRequest('anthropic');
      if (!received) return expect.fail('the simulator received no request');
      expect(received.rawBody).toBe(JSON.stringify(body('claude-sim')));
      expect(received.headers['anthropic-beta']).toBe(betas.join(','));
    }
  });

  it('are carried over unchanged when the request is translated', async () => {
    translating.simulator.reset();
    await clientOf(translating).beta.messages.create({ ...adaptiveBody('sim/anthropic-model'), betas } as BetaParams);
    let received = translating.simulator.lastRequest('anthropic');
    if (!received) return expect.fail('the simulator received no request');
    // Translated, not relayed: the gateway built this body itself.
    expect(received.rawBody).not.toBe(JSON.stringify(adaptiveBody('claude-sim')));
    const sent = adaptiveBody('claude-sim');
    expect((received.body as { thinking: unknown }).thinking).toEqual(sent.thinking);
    expect((received.body as { output_config: unknown }).output_config).toEqual(sent.output_config);
    expect(received.headers['anthropic-beta']).toBe(betas.join(','));

    translating.simulator.reset();
    const message = await clientOf(translating).beta.messages.create({ ...betweenToolsBody('sim/anthropic-model'), betas } as BetaParams);
    expect(message.stop_reason).toBe('tool_use');
    received = translating.simulator.lastRequest('anthropic');
    expect((received?.body as { thinking: unknown }).thinking).toEqual({ type: 'between_tools' });
    expect(received?.body).not.toHaveProperty('output_config');
  });
});

describe('Claude-only thinking and output_config fields on other protocols', () => {
  it.each([
    ['sim/openai-model', 'openai'],
    ['sim/gemini-model', 'gemini'],
  ] as const)('are accepted on %s: block_binding and task_budget as hints that go no further', async (model, protocol) => {
    const received = await sendThrough(relaying, { ...adaptiveBody(model), betas }, protocol);
    expect(received.rawBody).not.toMatch(/block_binding|prefix_mismatch|task_budget|64000/);
  });

  it.each([
    ['sim/openai-model', 'openai', (body: Record<string, unknown>) => expect(body).not.toHaveProperty('reasoning_effort')],
    ['sim/gemini-model', 'gemini', (body: Record<string, unknown>) => expect(body.generationConfig ?? {}).not.toHaveProperty('thinkingConfig')],
  ] as const)('take thinking between_tools on %s as thinking off, as for disabled', async (model, protocol, check) => {
    relaying.simulator.reset();
    const message = await clientOf(relaying).beta.messages.create({ ...betweenToolsBody(model), betas } as BetaParams);
    expect(message.stop_reason).toBe('tool_use');
    const received = relaying.simulator.lastRequest(protocol);
    if (!received) return expect.fail('the simulator received no request');
    check(received.body as Record<string, unknown>);
    expect(received.rawBody).not.toContain('between_tools');
  });
});

describe('thinking disabled beside output_config.effort', () => {
  it('is relayed as sent to an anthropic-wire model', async () => {
    relaying.simulator.reset();
    const message = await clientOf(relaying).beta.messages.create(disabledBody('sim/anthropic-model') as BetaParams);
    expect(message.role).toBe('assistant');
    expect(relaying.simulator.lastRequest('anthropic')?.rawBody).toBe(JSON.stringify(disabledBody('claude-sim')));
  });

  it('stays disabled when translated for an anthropic-wire model: the effort goes as output_config.effort, not as a thinking budget', async () => {
    translating.simulator.reset();
    const message = await clientOf(translating).beta.messages.create(disabledBody('sim/anthropic-model') as BetaParams);
    expect(message.role).toBe('assistant');
    const received = translating.simulator.lastRequest('anthropic');
    if (!received) return expect.fail('the simulator received no request');
    expect(received.rawBody).not.toBe(JSON.stringify(disabledBody('claude-sim')));
    const body = received.body as Record<string, unknown>;
    expect(body.thinking).toEqual({ type: 'disabled' });
    expect(body.output_config).toEqual({ effort: 'low' });
    expect(body.max_tokens).toBe(512);

    // Pass-through on, but translated for a field Anthropic takes under another name (output_format).
    relaying.simulator.reset();
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    const response = await sendJson(relaying, relaying.key, 'POST', '/v1/messages', { ...disabledBody('sim/anthropic-model'), output_format: { type: 'json_schema', schema } });
    expect(response.status, await response.clone().text()).toBe(200);
    const translated = relaying.simulator.lastRequest('anthropic')?.body as Record<string, unknown>;
    expect(translated.thinking).toEqual({ type: 'disabled' });
    expect(translated.output_config).toEqual({ format: { type: 'json_schema', schema }, effort: 'low' });
  });

  it.each([
    ['sim/openai-model', 'openai', (body: Record<string, unknown>) => expect(body).not.toHaveProperty('reasoning_effort')],
    ['sim/gemini-model', 'gemini', (body: Record<string, unknown>) => expect(body.generationConfig ?? {}).not.toHaveProperty('thinkingConfig')],
  ] as const)('asks %s for no reasoning: the effort is a hint there', async (model, protocol, check) => {
    const received = await sendThrough(relaying, disabledBody(model), protocol);
    check(received.body as Record<string, unknown>);
    expect(received.rawBody).not.toMatch(/effort|thinking/i);
  });
});

describe('thinking.display "updates" (the beta SDK type allows it)', () => {
  it('is relayed as sent, and carried over when translated, to an anthropic-wire model', async () => {
    relaying.simulator.reset();
    await clientOf(relaying).beta.messages.create(updatesBody('sim/anthropic-model') as BetaParams);
    expect(relaying.simulator.lastRequest('anthropic')?.rawBody).toBe(JSON.stringify(updatesBody('claude-sim')));
    translating.simulator.reset();
    await clientOf(translating).beta.messages.create(updatesBody('sim/anthropic-model') as BetaParams);
    expect((translating.simulator.lastRequest('anthropic')?.body as { thinking: unknown }).thinking).toEqual({ type: 'adaptive', display: 'updates' });
  });

  it.each([
    ['sim/openai-model', 'openai', (body: Record<string, unknown>) => expect(JSON.stringify(body)).not.toContain('updates')],
    ['sim/gemini-model', 'gemini', (body: Record<string, unknown>) => expect((body.generationConfig as Record<string, unknown>).thinkingConfig).toEqual({ thinkingBudget: -1, includeThoughts: true })],
  ] as const)('is accepted on %s as summarized is', async (model, protocol, check) => {
    const received = await sendThrough(relaying, updatesBody(model), protocol);
    check(received.body as Record<string, unknown>);
  });
});
