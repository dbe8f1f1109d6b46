import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { SocketClient, terminal } from '../helpers/socket-client.js';

let gateway: SimulatedGateway;

beforeAll(async () => {
  gateway = await startSimulatedGateway({ credits: 100 });
});
afterAll(() => gateway.close());

/** The samples of the exposition text: `name{labels} value` → value, keyed by `name{labels}`. */
function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

function sum(samples: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const [key, value] of samples) {
    if (!key.startsWith(`${name}{`) && key !== name) continue;
    if (Object.entries(labels).every(([label, expected]) => key.includes(`${label}="${expected}"`))) total += value;
  }
  return total;
}

const chat = (key: string, model: string, content: string, extra: Record<string, unknown> = {}) =>
  sendJson(gateway, key, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content }], max_tokens: 20, ...extra });

async function readStream(response: Response): Promise<void> {
  expect(response.status).toBe(200);
  await response.text();
}

describe('GET /metrics', () => {
  it('is for the operator only', async () => {
    expect((await sendJson(gateway, undefined, 'GET', '/metrics')).status).toBe(401);
    expect((await sendJson(gateway, gateway.key, 'GET', '/metrics')).status).toBe(401);
    const answer = await sendJson(gateway, gateway.test.adminToken, 'GET', '/metrics');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/plain');
  });

  it('counts a scripted workload exactly', async () => {
    const { key } = gateway;
    // 3 answers and 2 streams that succeed.
    for (let index = 0; index < 3; index += 1) expect((await chat(key, 'sim/openai-model', `hello ${index}`)).status).toBe(200);
    for (let index = 0; index < 2; index += 1) {
      await readStream(await sendJson(gateway, key, 'POST', '/v1/messages', { model: 'sim/anthropic-model', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'hi' }] }));
    }
    // One upstream failure with nowhere else to go, and one that fails over across all three providers.
    expect((await chat(key, 'sim/openai-model', 'boom [[sim:status=500]]')).status).toBe(502);
    expect((await chat(key, 'sim/everywhere', 'boom [[sim:status=503]]')).status).toBe(502);
    // A key allowed one request a minute: the second is refused with 429.
    const created = (await (await sendJson(gateway, key, 'POST', '/v1/keys', { name: 'slow', requests_per_minute: 1 })).json()) as { key: string };
    expect((await chat(created.key, 'sim/openai-model', 'first')).status).toBe(200);
    expect((await chat(created.key, 'sim/openai-model', 'second')).status).toBe(429);

    // Refusals' rows are queued apart from any charge; once written, the writer's queue is empty.
    await gateway.test.context.requestLog.flush();
    const samples = parseExposition(await (await sendJson(gateway, gateway.test.adminToken, 'GET', '/metrics')).text());
    const generations = 'switchyard_generation_requests_total';
    expect(sum(samples, generations, { endpoint: '/chat/completions', model: 'sim/openai-model', provider: 'sim-openai', status: 'completed' })).toBe(4);
    expect(sum(samples, generations, { endpoint: '/messages', model: 'sim/anthropic-model', provider: 'sim-anthropic', status: 'completed' })).toBe(2);
    expect(sum(samples, generations, { model: 'sim/openai-model', provider: 'sim-openai', status: 'failed' })).toBe(1);
    expect(sum(samples, generations, { model: 'sim/everywhere', status: 'failed' })).toBe(1);
    expect(sum(samples, generations, { model: 'sim/openai-model', status: 'refused' })).toBe(1);
    expect(sum(samples, generations)).toBe(9);

    expect(sum(samples, 'switchyard_upstream_errors_total', { provider: 'sim-openai' })).toBe(2);
    expect(sum(samples, 'switchyard_upstream_errors_total', { provider: 'sim-anthropic' })).toBe(1);
    expect(sum(samples, 'switchyard_upstream_errors_total', { provider: 'sim-gemini' })).toBe(1);
    // Failing over from the first two endpoints of sim/everywhere; the last one had no next.
    expect(sum(samples, 'switchyard_upstream_retries_total')).toBe(2);
    expect(sum(samples, 'switchyard_rate_limited_total', { limit_type: 'requests_per_minute' })).toBe(1);

    expect(sum(samples, 'switchyard_http_requests_total', { route: '/v1/chat/completions', method: 'POST', status: '200' })).toBe(4);
    expect(sum(samples, 'switchyard_http_requests_total', { route: '/v1/chat/completions', status: '502' })).toBe(2);
    expect(sum(samples, 'switchyard_http_requests_total', { route: '/v1/chat/completions', status: '429' })).toBe(1);
    expect(sum(samples, 'switchyard_http_requests_total', { route: '/v1/messages', status: '200' })).toBe(2);
    expect(sum(samples, 'switchyard_http_request_duration_seconds_count', { route: '/v1/chat/completions' })).toBe(7);
    expect(sum(samples, 'switchyard_time_to_first_token_seconds_count', { model: 'sim/anthropic-model', provider: 'sim-anthropic' })).toBe(2);

    // Charged amounts equal what the account was charged, to the nano-dollar.
    const credits = (await (await sendJson(gateway, key, 'GET', '/v1/credits')).json()) as { data: { total_usage: number } };
    expect(credits.data.total_usage).toBeGreaterThan(0);
    expect(sum(samples, 'switchyard_charged_usd_total')).toBeCloseTo(credits.data.total_usage, 12);
    expect(sum(samples, 'switchyard_uncollected_usd')).toBe(0);
    expect(sum(samples, 'switchyard_open_reservations')).toBe(0);
    // Leases are on by default: the two accounts' requests were reserved out of lease rows, held while the instance runs.
    expect(sum(samples, 'switchyard_fund_leases')).toBeGreaterThan(0);
    expect(sum(samples, 'switchyard_request_log_queue_depth')).toBe(0);
    expect(sum(samples, 'switchyard_circuit_state', { provider: 'sim-openai', provider_model: 'gpt-sim' })).toBe(0);
  });

  it('counts a Responses WebSocket response as it counts an SSE one', async () => {
    const read = async () => parseExposition(await (await sendJson(gateway, gateway.test.adminToken, 'GET', '/metrics')).text());
    const served = { model: 'sim/openai-model', provider: 'sim-openai' };
    const upgrade = { route: '/v1/responses', method: 'GET', status: '101' };
    const before = await read();
    // A key allowed one request a minute: the second response.create is refused with an `error` message.
    const created = (await (await sendJson(gateway, gateway.key, 'POST', '/v1/keys', { name: 'socket', requests_per_minute: 1 })).json()) as { key: string };
    const socket = new SocketClient(gateway.url, created.key);
    await socket.opened();
    socket.send({ type: 'response.create', model: served.model, input: 'hello over a socket' });
    const [done] = await socket.waitFor(terminal);
    expect(done.type).toBe('response.completed');
    socket.send({ type: 'response.create', model: served.model, input: 'once more' });
    const [refused] = await socket.waitFor((message) => message.type === 'error');
    expect(refused.error).toMatchObject({ code: 'rate_limited', metadata: { limit_type: 'requests_per_minute' } });
    socket.close();
    await socket.closed;
    await gateway.test.context.requestLog.flush();
    // The server counts the upgrade when its side of the connection ends, which may follow the client's close event.
    let after = await read();
    for (let tries = 0; sum(after, 'switchyard_http_requests_total', upgrade) === sum(before, 'switchyard_http_requests_total', upgrade) && tries < 50; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await read();
    }
    const grew = (name: string, labels: Record<string, string>) => sum(after, name, labels) - sum(before, name, labels);

    expect(grew('switchyard_time_to_first_token_seconds_count', served)).toBe(1);
    expect(grew('switchyard_generation_requests_total', { endpoint: '/responses', ...served, status: 'completed' })).toBe(1);
    expect(grew('switchyard_generation_requests_total', { endpoint: '/responses', model: served.model, status: 'refused' })).toBe(1);
    expect(grew('switchyard_charged_usd_total', { provider: served.provider })).toBeCloseTo(done.response.usage.cost as number, 12);
    expect(grew('switchyard_rate_limited_total', { limit_type: 'requests_per_minute' })).toBe(1);
    // The connection is one HTTP exchange (101), however many responses it carried.
    expect(grew('switchyard_http_requests_total', upgrade)).toBe(1);
    expect(grew('switchyard_http_request_duration_seconds_count', { route: '/v1/responses', method: 'GET' })).toBe(1);
  });

  it('shows an endpoint whose breaker opened after consecutive failures', async () => {
    for (let index = 0; index < 5; index += 1) expect((await chat(gateway.key, 'sim/gemini-model', 'down [[sim:status=500]]')).status).toBe(502);
    const samples = parseExposition(await (await sendJson(gateway, gateway.test.adminToken, 'GET', '/metrics')).text());
    expect(sum(samples, 'switchyard_circuit_state', { provider: 'sim-gemini', provider_model: 'gemini-sim' })).toBe(2);
  });
});
