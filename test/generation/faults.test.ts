import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readSseEvents } from '../helpers/read-sse.js';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

let gateway: SimulatedGateway;
let openai: OpenAI;

beforeAll(async () => {
  gateway = await startSimulatedGateway({ timeouts: '{connect_ms: 1000, first_byte_ms: 800, idle_ms: 600}' });
  openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});
afterAll(async () => gateway?.close());
afterEach(() => gateway.simulator.reset());

const post = (path: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${gateway.url}/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });

// Node 20's fetch types answer `unknown`; these tests read the shapes they assert.
const json = (response: Response): Promise<any> => response.json();

const chat = (model: string, content: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user', content }], ...extra });

describe('failover before the first byte', () => {
  for (const [label, fault] of [
    ['500', { status: 500 }],
    ['429', { status: 429, retry_after: 1 }],
    ['a first-byte timeout', { latency: 2000 }],
  ] as const) {
    it(`moves to the next endpoint on ${label}, streaming and not`, async () => {
      gateway.simulator.setFault({ match: { protocol: 'openai', model: 'gpt-everywhere' }, fault, times: 2 });
      const plain = await post('/chat/completions', chat('sim/everywhere', 'hello'));
      expect(plain.status).toBe(200);
      expect(plain.headers.get('x-switchyard-provider')).toBe('sim-anthropic');
      expect((await json(plain)).choices[0].message.content).toMatch(/^Simulated reply from claude-everywhere/);

      const streamed = await post('/chat/completions', chat('sim/everywhere', 'hello', { stream: true }));
      expect(streamed.status).toBe(200);
      expect(streamed.headers.get('x-switchyard-provider')).toBe('sim-anthropic');
      const events = await readSseEvents(streamed);
      expect(events.at(-1)?.data).toBe('[DONE]');
      expect(events.some((event) => event.data.includes('claude-everywhere'))).toBe(true);
    });
  }

  it('falls back to the next model in models[] and reports which one served', async () => {
    gateway.simulator.setFault({ match: { model: 'claude-sim' }, fault: { status: 503 } });
    const completion = await openai.chat.completions.create({ model: 'sim/anthropic-model', models: ['sim/backup'], messages: [{ role: 'user', content: 'hi' }] } as never);
    expect((completion as OpenAI.ChatCompletion).model).toBe('sim/backup');
  });

  it('does not fail over on a 400 from the provider, and passes it on as invalid_request', async () => {
    gateway.simulator.setFault({ match: { model: 'gpt-sim' }, fault: { status: 400 } });
    const response = await post('/chat/completions', chat('sim/openai-model', 'hello', { models: ['sim/backup'] }));
    expect(response.status).toBe(400);
    expect((await json(response)).error.code).toBe('invalid_request');
    expect(gateway.simulator.stats().protocols.anthropic.requests).toBe(0);
  });

  it('answers 502 in the envelope when every provider fails, and charges nothing', async () => {
    const before = await json(await fetch(`${gateway.url}/v1/credits`, { headers: { authorization: `Bearer ${gateway.key}` } }));
    gateway.simulator.setFault({ fault: { status: 500 } });
    const response = await post('/chat/completions', chat('sim/everywhere', 'hello'));
    expect(response.status).toBe(502);
    const body = await json(response);
    expect(body.error).toMatchObject({ code: 'upstream_error', status: 502 });
    expect(body.error.metadata.request_id).toBe(response.headers.get('x-request-id'));
    expect(gateway.simulator.stats().requests).toBe(3);
    const after = await json(await fetch(`${gateway.url}/v1/credits`, { headers: { authorization: `Bearer ${gateway.key}` } }));
    expect(after).toEqual(before);
  });
});

describe('failure after the first byte ends the stream in-band', () => {
  it('Chat Completions: a final chunk with finish_reason "error" and an error object', async () => {
    const response = await post('/chat/completions', chat('sim/openai-model', 'hello [[sim:disconnect_after=4]]', { stream: true }));
    expect(response.status).toBe(200);
    const events = await readSseEvents(response);
    expect(events.at(-1)?.data).toBe('[DONE]');
    const last = JSON.parse(events.at(-2)!.data);
    expect(last.choices[0].finish_reason).toBe('error');
    expect(last.error).toMatchObject({ code: 'upstream_error' });
  });

  it('Responses: response.failed', async () => {
    const response = await post('/responses', { model: 'sim/gemini-model', input: 'hello [[sim:disconnect_after=3]]', stream: true });
    const events = await readSseEvents(response);
    const last = events.at(-1)!;
    expect(last.event).toBe('response.failed');
    expect(JSON.parse(last.data).response.status).toBe('failed');
  });

  it('Messages: an error event', async () => {
    const response = await post('/messages', { model: 'sim/anthropic-model', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hello [[sim:malformed_after=4]]' }] });
    const events = await readSseEvents(response);
    const last = events.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toMatchObject({ type: 'error', error: { type: expect.any(String) } });
  });

  it('a stalled upstream hits the between-chunk timeout and ends with upstream_timeout', async () => {
    const started = Date.now();
    const response = await post('/chat/completions', chat('sim/openai-model', 'hello [[sim:stall_after=3]]', { stream: true }));
    const events = await readSseEvents(response);
    const last = JSON.parse(events.at(-2)!.data);
    expect(last.error).toMatchObject({ code: 'upstream_timeout' });
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('client abort', () => {
  it('closes the upstream connection within a second and charges what was generated', async () => {
    const slow = await startSimulatedGateway({ simulator: { tokensPerSecond: 4, replyTokens: 40 } });
    try {
      const controller = new AbortController();
      const response = await fetch(`${slow.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${slow.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(chat('sim/openai-model', 'hello', { stream: true })),
        signal: controller.signal,
      });
      const reader = response.body!.getReader();
      await reader.read();
      expect(slow.simulator.stats().open).toBe(1);
      controller.abort();
      const abortedAt = Date.now();
      while (slow.simulator.stats().open > 0 && Date.now() - abortedAt < 1000) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(slow.simulator.stats().open).toBe(0);
      expect(slow.simulator.stats().aborted).toBe(1);
      expect(Date.now() - abortedAt).toBeLessThan(1000);
      let usage = 0;
      for (let attempt = 0; attempt < 50 && usage === 0; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        usage = (await json(await fetch(`${slow.url}/v1/credits`, { headers: { authorization: `Bearer ${slow.key}` } }))).data.total_usage;
      }
      expect(usage).toBeGreaterThan(0);
    } finally {
      await slow.close();
    }
  });
});
