import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * Each simulated provider may carry 2 calls at once with 1 more waiting at most 400 ms; the
 * simulator streams 20 tokens a second, so a 30-token stream holds its connection 1.5 s.
 */
const limitedCatalog = (url: string) => simulatedCatalogYaml(url).replaceAll('api_key: sim-key,', 'api_key: sim-key, connections: {max: 2, queue: 1, queue_timeout_ms: 400},');

interface ErrorBody {
  error: { code: string; status: number; message: string; metadata: { request_id: string } };
}

describe('bounded upstream connections per provider', () => {
  let gateway: SimulatedGateway;
  beforeAll(async () => {
    gateway = await startSimulatedGateway({ simulator: { tokensPerSecond: 20 }, catalogYaml: limitedCatalog });
  });
  afterAll(async () => gateway?.close());

  const chat = (model: string, stream: boolean, content = 'hello') =>
    sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', { model, stream, max_tokens: 100, messages: [{ role: 'user', content }] });
  const timed = async (pending: Promise<Response>) => {
    const started = performance.now();
    const response = await pending;
    return { response, ms: performance.now() - started };
  };
  const longStream = () => chat('sim/openai-model', true, '[[sim:reply_tokens=30]] hold the connection');

  it('past the connections and the line, answers 503 service_unavailable with Retry-After at once; a waiting call gets the same after queue_timeout_ms', async () => {
    const before = gateway.simulator.stats().protocols.openai.requests;
    const streams = await Promise.all([longStream(), longStream()]);
    expect(streams.map((response) => response.status)).toEqual([200, 200]);

    const waiting = timed(chat('sim/openai-model', false));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const metrics = await (await sendJson(gateway, gateway.test.adminToken, 'GET', '/metrics')).text();
    expect(metrics).toContain('switchyard_upstream_connections{provider="sim-openai",state="in_use"} 2');
    expect(metrics).toContain('switchyard_upstream_connections{provider="sim-openai",state="queued"} 1');
    const refused = await timed(chat('sim/openai-model', false));
    expect(refused.response.status).toBe(503);
    expect(refused.ms).toBeLessThan(300);
    expect(refused.response.headers.get('retry-after')).toBe('1');
    const body = (await refused.response.json()) as ErrorBody;
    expect(body.error).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(body.error.message).toContain('connection the gateway may open');
    expect(body.error.metadata.request_id).toBe(refused.response.headers.get('x-request-id'));

    const late = await waiting;
    expect(late.response.status).toBe(503);
    expect(late.ms).toBeGreaterThanOrEqual(380);
    expect(late.ms).toBeLessThan(1_400);
    expect(late.response.headers.get('retry-after')).toBe('1');

    // Both refusals are logged as refusals, with no provider: none was called.
    await gateway.test.context.requestLog.flush();
    const row = (await (await sendJson(gateway, gateway.key, 'GET', `/v1/requests/${body.error.metadata.request_id}`)).json()) as { data: { status: string; provider: string | null } };
    expect(row.data).toMatchObject({ status: 'refused', provider: null });
    expect(gateway.simulator.stats().protocols.openai.requests - before).toBe(2);

    // The streams end whole and free their connections.
    for (const stream of streams) expect(await stream.text()).toContain('data: [DONE]');
    const after = await chat('sim/openai-model', false);
    expect(after.status).toBe(200);
  }, 30_000);

  it('a call that gets a connection within queue_timeout_ms is served', async () => {
    const streams = await Promise.all([chat('sim/openai-model', true, '[[sim:reply_tokens=4]] short'), chat('sim/openai-model', true, '[[sim:reply_tokens=4]] short')]);
    const waited = await timed(chat('sim/openai-model', false));
    expect(waited.response.status).toBe(200);
    expect(waited.ms).toBeGreaterThan(100);
    for (const stream of streams) await stream.text();
  }, 30_000);

  it('fails over to the next endpoint of the model when the first provider is full', async () => {
    const streams = await Promise.all([longStream(), longStream()]);
    const waiting = chat('sim/openai-model', false);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // sim/everywhere: sim-openai first (cheapest), then sim-anthropic.
    const served = await chat('sim/everywhere', false);
    expect(served.status).toBe(200);
    const id = served.headers.get('x-request-id');
    await gateway.test.context.requestLog.flush();
    const row = (await (await sendJson(gateway, gateway.key, 'GET', `/v1/requests/${id}`)).json()) as { data: { status: string; provider: string } };
    expect(row.data).toMatchObject({ status: 'completed', provider: 'sim-anthropic' });
    await waiting;
    for (const stream of streams) await stream.text();
  }, 30_000);
});
