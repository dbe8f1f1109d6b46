import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { postJson, readFirstSseEvents, readSseEvents, waitFor } from './__fixtures__/read-sse-events.js';
import type { Simulator, SimulatorOptions } from './simulator-types.js';
import { startSimulator } from './start-simulator.js';

const running: Simulator[] = [];
async function start(options?: SimulatorOptions): Promise<Simulator> {
  const simulator = await startSimulator(options);
  running.push(simulator);
  return simulator;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((simulator) => simulator.close()));
});

const chatBody = (model: string, content = 'hi', extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user', content }], ...extra });

describe('fault rules', () => {
  it('over HTTP: fails one model `times` times, leaving other models alone', async () => {
    const simulator = await start();
    const rule = { match: { protocol: 'openai', model: 'flaky' }, fault: { status: 502 }, times: 2 };
    const created = await postJson(`${simulator.url}/_sim/faults`, rule);
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ id: expect.stringMatching(/^fault_/) });

    const url = `${simulator.baseUrls.openai}/chat/completions`;
    const statuses = [];
    for (const model of ['flaky', 'steady', 'flaky', 'flaky']) statuses.push((await postJson(url, chatBody(model))).status);
    expect(statuses).toEqual([502, 200, 502, 200]);
    expect(await (await fetch(`${simulator.url}/_sim/faults`)).json()).toEqual({ rules: [] });
  });

  it('programmatically: lets the SDK retry through a 429 that carries retry-after', async () => {
    const simulator = await start();
    simulator.setFault({ match: { model: 'busy' }, fault: { status: 429, retry_after: 0 }, times: 1 });
    const client = new OpenAI({ apiKey: 'x', baseURL: simulator.baseUrls.openai, maxRetries: 1 });
    const completion = await client.chat.completions.create({ model: 'busy', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(simulator.stats().protocols.openai.models).toEqual({ busy: 2 });
  });

  it('DELETE /_sim/faults clears every rule, and bad rules are refused', async () => {
    const simulator = await start();
    simulator.setFault({ fault: { status: 500 } });
    expect((await fetch(`${simulator.url}/_sim/faults`, { method: 'DELETE' })).status).toBe(204);
    expect((await postJson(`${simulator.baseUrls.openai}/chat/completions`, chatBody('m'))).status).toBe(200);
    const refused = await postJson(`${simulator.url}/_sim/faults`, { fault: { explode: true } });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: { message: 'unknown fault key: explode' } });
  });
});

describe('stats', () => {
  it('counts requests per protocol and model, open requests and client aborts', async () => {
    const simulator = await start();
    await postJson(`${simulator.baseUrls.openai}/chat/completions`, chatBody('a'));
    await postJson(`${simulator.baseUrls.openai}/chat/completions`, chatBody('a'));
    await postJson(`${simulator.baseUrls.anthropic}/v1/messages`, { ...chatBody('b'), max_tokens: 5 });
    await postJson(`${simulator.baseUrls.gemini}/models/c:generateContent`, { contents: [{ parts: [{ text: 'x' }] }] });

    const controller = new AbortController();
    const slowBody = chatBody('a', '[[sim:latency=5000]]');
    const slow = postJson(`${simulator.baseUrls.openai}/chat/completions`, slowBody, {}, controller.signal).catch(() => 'aborted');
    await waitFor(() => simulator.stats().open === 1);
    controller.abort();
    expect(await slow).toBe('aborted');
    await waitFor(() => simulator.stats().open === 0);

    const stats = (await (await fetch(`${simulator.url}/_sim/stats`)).json()) as ReturnType<Simulator['stats']>;
    // Media job and batch counters (videos, fal, batches) have their own suites; toEqual skips the undefined keys.
    expect({ ...stats, videos: undefined, fal: undefined, batches: undefined, googleTokensIssued: undefined }).toEqual({
      requests: 5,
      protocols: {
        openai: { requests: 3, models: { a: 3 } },
        anthropic: { requests: 1, models: { b: 1 } },
        gemini: { requests: 1, models: { c: 1 } },
        bedrock: { requests: 0, models: {} },
        voyage: { requests: 0, models: {} },
        jina: { requests: 0, models: {} },
        cohere: { requests: 0, models: {} },
      },
      aborted: 1,
      open: 0,
      // The requests were sent one after another: never more than one in flight.
      maxOpen: 1,
      faultsInjected: 1,
    });
    simulator.reset();
    expect(simulator.stats()).toMatchObject({ requests: 0, aborted: 0, open: 0, maxOpen: 0, protocols: { openai: { requests: 0, models: {} } } });
  });
});

describe('pacing and lifecycle', () => {
  it('paces streams at tokensPerSecond and groups chunkTokens per chunk', async () => {
    const simulator = await start({ tokensPerSecond: 100, chunkTokens: 5, replyTokens: 10, latencyMs: 30 });
    const started = performance.now();
    const response = await postJson(`${simulator.baseUrls.openai}/chat/completions`, chatBody('m', 'hi', { stream: true }));
    const events = await readSseEvents(response);
    const elapsed = performance.now() - started;
    // 30 ms latency plus 10 tokens at 100 tokens/s.
    expect(elapsed).toBeGreaterThanOrEqual(125);
    const contents = events.flatMap((event) => (event.data === '[DONE]' ? [] : [JSON.parse(event.data).choices[0]?.delta.content])).filter(Boolean);
    expect(contents).toEqual(['Simulated reply from m: hi', ' hi hi hi hi hi']);
  });

  it('clears the pacing timer when the client goes away mid-stream', async () => {
    const simulator = await start({ tokensPerSecond: 1, replyTokens: 50 });
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    const controller = new AbortController();
    const response = await postJson(`${simulator.baseUrls.openai}/chat/completions`, chatBody('m', 'hi', { stream: true }), {}, controller.signal);
    await readFirstSseEvents(response, 1);
    const whileStreaming = timers();
    controller.abort();
    await waitFor(() => simulator.stats().open === 0);
    expect(simulator.stats().aborted).toBe(1);
    expect(timers()).toBeLessThan(whileStreaming);
  });

  it('close() resolves while a stream is stalled', async () => {
    const simulator = await startSimulator();
    const response = await postJson(`${simulator.baseUrls.openai}/chat/completions`, chatBody('m', '[[sim:stall_after=1]]', { stream: true }));
    await readFirstSseEvents(response, 1);
    await expect(simulator.close()).resolves.toBeUndefined();
  });

  it('rejects a body that is not JSON with the protocol 400 shape', async () => {
    const simulator = await start();
    const response = await fetch(`${simulator.baseUrls.anthropic}/v1/messages`, { method: 'POST', body: '{"model":' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'The request body is not valid JSON.' } });
  });

  it('answers unknown paths with a JSON 404', async () => {
    const simulator = await start();
    const response = await fetch(`${simulator.url}/openai/v1/no-such-operation`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { message: 'no simulator route for POST /openai/v1/no-such-operation' } });
  });
});

describe('recorded answers', () => {
  it('over HTTP: answers the next request of the protocol with the recording, byte for byte, after its auth', async () => {
    const simulator = await start({ apiKey: 'k' });
    const recorded = '{"id":"chatcmpl-rec","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"recorded"},"finish_reason":"stop"}]}';
    const refused = await postJson(`${simulator.url}/_sim/recordings`, { protocol: 'openai', content_type: 'application/json' });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/body/);
    expect((await postJson(`${simulator.url}/_sim/recordings`, { protocol: 'openai', status: 200, content_type: 'application/json', body: recorded, headers: { 'x-recorded': 'yes' } })).status).toBe(201);
    const url = `${simulator.baseUrls.openai}/chat/completions`;
    // A request without the key is refused as before, and leaves the recording queued.
    expect((await postJson(url, chatBody('m'))).status).toBe(401);
    const answered = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body: JSON.stringify(chatBody('m')) });
    expect(answered.headers.get('x-recorded')).toBe('yes');
    expect(await answered.text()).toBe(recorded);
    // The queue is used up: the next request is simulated again.
    const simulated = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body: JSON.stringify(chatBody('m')) });
    expect(((await simulated.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content).toMatch(/^Simulated reply from m: /);
  });
});
