import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatorProtocol } from '@switchyard/simulator';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * Contract §5: when the client sends no max-tokens field, the upstream request carries a cap —
 * what the funds allow, and at most the endpoint's maximum (1,000 in the simulated catalog) — on
 * every path: relayed (Chat Completions to an openai-wire model) and translated, every style,
 * streaming or not. Read from the body the simulator received.
 */
let gateway: SimulatedGateway;
let poor: { key: string };
let rich: { key: string };

beforeAll(async () => {
  gateway = await startSimulatedGateway();
  // 0.001 USD: less than the endpoint's whole output (1,000 tokens at 2 USD/M = 0.002 USD).
  poor = await gateway.test.createAccount({ credits: 0.001 });
  rich = await gateway.test.createAccount({ credits: 100 });
});
afterAll(async () => gateway?.close());

const wires: Array<{ model: string; protocol: SimulatorProtocol }> = [
  { model: 'sim/openai-model', protocol: 'openai' },
  { model: 'sim/anthropic-model', protocol: 'anthropic' },
  { model: 'sim/gemini-model', protocol: 'gemini' },
];

const styles = {
  chat: { path: '/v1/chat/completions', body: (model: string) => ({ model, messages: [{ role: 'user', content: 'hello' }] }) },
  responses: { path: '/v1/responses', body: (model: string) => ({ model, input: 'hello' }) },
} as const;

/** The output cap of the upstream request, in the protocol's own field. */
function upstreamCap(protocol: SimulatorProtocol): unknown {
  const body = gateway.simulator.lastRequest(protocol)?.body as Record<string, any>;
  if (protocol === 'gemini') return body.generationConfig?.maxOutputTokens;
  return body.max_completion_tokens ?? body.max_tokens;
}

async function send(key: string, style: keyof typeof styles, model: string, stream: boolean): Promise<void> {
  const response = await sendJson(gateway, key, 'POST', styles[style].path, { ...styles[style].body(model), stream });
  const text = await response.text();
  expect(response.status, text).toBe(200);
}

describe.each(Object.keys(styles) as Array<keyof typeof styles>)('%s', (style) => {
  describe.each(wires)('$model', ({ model, protocol }) => {
    const path = style === 'chat' && protocol === 'openai' ? 'relayed' : 'translated';

    it.each([false, true])(`${path}, stream %s: the cap is what the funds allow`, async (stream) => {
      await send(poor.key, style, model, stream);
      const cap = upstreamCap(protocol);
      expect(typeof cap).toBe('number');
      expect(cap).toBeGreaterThan(0);
      expect(cap).toBeLessThan(1000);
    });

    it.each([false, true])(`${path}, stream %s: the cap is the endpoint's maximum when the funds cover it`, async (stream) => {
      await send(rich.key, style, model, stream);
      expect(upstreamCap(protocol)).toBe(1000);
    });
  });
});

describe('chat, translated to an openai-wire model', () => {
  // `cache_control` on a message part is the gateway's to read: the request is translated, not relayed.
  const body = { model: 'sim/openai-model', messages: [{ role: 'user', content: [{ type: 'text', text: 'hello', cache_control: { type: 'ephemeral' } }] }] };
  it.each([false, true])('stream %s: the cap is what the funds allow', async (stream) => {
    const response = await sendJson(gateway, poor.key, 'POST', '/v1/chat/completions', { ...body, stream });
    expect(response.status, await response.text()).toBe(200);
    const sent = gateway.simulator.lastRequest('openai')?.body as Record<string, any>;
    expect(sent.messages[0].content).not.toEqual(body.messages[0]!.content);
    expect(sent.max_tokens).toBeGreaterThan(0);
    expect(sent.max_tokens).toBeLessThan(1000);
  });
});

describe('messages', () => {
  // `max_tokens` is required on /messages: the client's value, lowered to the endpoint's maximum.
  it.each(wires)('$model: a max_tokens above the endpoint maximum reaches the provider as that maximum', async ({ model, protocol }) => {
    for (const stream of [false, true]) {
      const response = await sendJson(gateway, rich.key, 'POST', '/v1/messages', { model, max_tokens: 4096, messages: [{ role: 'user', content: 'hello' }], stream });
      expect(response.status, await response.text()).toBe(200);
      expect(upstreamCap(protocol)).toBe(1000);
    }
  });
});
