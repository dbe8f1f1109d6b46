import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { captureLogLines, logLevels } from '../helpers/capture-log-lines.js';
import { readSseEvents } from '../helpers/read-sse.js';
import { readAccountMoney, sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { SocketClient, terminal, type Json } from '../helpers/socket-client.js';

/** An event with what differs between two generations of the same text (ids, times) made equal. */
function comparable(event: Json, responseId: string): Json {
  // The simulator numbers its tool call ids per request it served.
  const text = JSON.stringify(event).replaceAll(responseId, 'RESPONSE').replace(/call_sim\d+_/g, 'call_sim_');
  const copy = JSON.parse(text) as Json;
  if (copy.response) {
    delete copy.response.created_at;
    delete copy.response.completed_at;
  }
  return copy;
}

/**
 * WebSocket mode of the Responses API, with a real WebSocket client (undici's) against the real
 * gateway: the same events as SSE, responses in order on one connection, the same billing and
 * request log, and refusals in the error envelope.
 */
describe('Responses WebSocket mode', () => {
  let gateway: SimulatedGateway;
  const log = captureLogLines();
  beforeAll(async () => {
    gateway = await startSimulatedGateway({
      credits: 100,
      logger: log.logger,
      configure: (config) => {
        config.server.http = { ...config.server.http, maxSocketsPerKey: 2, socketIdleTimeoutMs: 1500 };
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
  });
  // Every refusal below is a client's mistake (a wrong key, a bad message, a burst): never an error line.
  afterEach(() => {
    expect(log.lines.filter((line) => line.level >= logLevels.error)).toEqual([]);
  });
  /** A fresh key of the same account: the open-socket cap (2 here) is per key, and each test holds its own sockets. */
  const newKey = async () => {
    const answer = await sendJson(gateway, gateway.key, 'POST', '/v1/keys', { name: 'socket test' });
    return ((await answer.json()) as Json).key as string;
  };

  it('answers three sequential response.create messages on one connection with the events an SSE client gets', async () => {
    const inputs = [
      { model: 'sim/openai-model', input: 'first question' },
      { model: 'sim/anthropic-model', input: 'second question' },
      { model: 'sim/gemini-model', input: 'third question', tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } }] },
    ];
    const socket = new SocketClient(gateway.url, gateway.key);
    await socket.opened();
    for (const input of inputs) socket.send({ type: 'response.create', ...input });
    await socket.waitFor(terminal, 3);

    const byResponse: Json[][] = [];
    for (const message of socket.messages) {
      if (message.type === 'response.created') byResponse.push([]);
      byResponse.at(-1)!.push(message);
    }
    expect(byResponse).toHaveLength(3);
    for (const [index, input] of inputs.entries()) {
      const overSocket = byResponse[index];
      // In order: each response starts only after the previous one ended.
      expect(overSocket.at(-1)!.type).toBe('response.completed');
      const sse = await sendJson(gateway, gateway.key, 'POST', '/v1/responses', { ...input, stream: true });
      const overSse = (await readSseEvents(sse)).map((frame) => JSON.parse(frame.data) as Json);
      const socketId = overSocket[0].response.id as string;
      const sseId = overSse[0].response.id as string;
      expect(overSocket.map((event) => comparable(event, socketId))).toEqual(overSse.map((event) => comparable(event, sseId)));
    }
    expect(byResponse[2].some((event) => event.type === 'response.function_call_arguments.delta')).toBe(true);

    // Each response's time to first token is measured like an SSE one's: one over the socket,
    // one over SSE, per model.
    const metrics = await (await sendJson(gateway, gateway.test.adminToken, 'GET', '/metrics')).text();
    for (const { model } of inputs) {
      const line = metrics.split('\n').find((sample) => sample.startsWith('switchyard_time_to_first_token_seconds_count{') && sample.includes(`model="${model}"`));
      expect(Number(line?.split(' ').at(-1))).toBe(2);
    }

    // Each response was logged and charged like an HTTP one.
    await gateway.test.context.requestLog.flush();
    for (const events of byResponse) {
      const id = events[0].response.id as string;
      const row = (await (await sendJson(gateway, gateway.key, 'GET', `/v1/requests/${id}`)).json()) as Json;
      expect(row.data).toMatchObject({ id, endpoint: '/responses', status: 'completed', cost: events.at(-1)!.response.usage.cost });
    }
    socket.close();
  });

  it('continues from the connection’s own store: false response with previous_response_id', async () => {
    const socket = new SocketClient(gateway.url, await newKey());
    await socket.opened();
    socket.send({ type: 'response.create', model: 'sim/anthropic-model', store: false, input: 'the code word is cobalt' });
    const [first] = await socket.waitFor(terminal);
    socket.send({ type: 'response.create', model: 'sim/gemini-model', store: false, previous_response_id: first.response.id, input: 'which word?' });
    await socket.waitFor(terminal, 2);
    const upstream = JSON.stringify(gateway.simulator.received().at(-1)?.body);
    expect(upstream).toContain('the code word is cobalt');
    expect(upstream).toContain('which word?');
    // Not stored: over HTTP, or on another connection, it is gone.
    expect((await sendJson(gateway, gateway.key, 'GET', `/v1/responses/${first.response.id}`)).status).toBe(404);
    socket.close();
  });

  it('warms up with generate: false (as Codex does at session start): no model call, no charge, no log row, and the next turn continues from it', async () => {
    const socket = new SocketClient(gateway.url, await newKey());
    await socket.opened();
    const served = gateway.simulator.received().length;
    const before = await readAccountMoney(gateway);
    socket.send({ type: 'response.create', generate: false, model: 'sim/anthropic-model', store: false, instructions: 'You answer tersely.', input: 'the code word is amber' });
    const [warm] = await socket.waitFor(terminal);
    expect(warm.type).toBe('response.completed');
    expect(warm.response).toMatchObject({ status: 'completed', output: [], store: false });
    expect(gateway.simulator.received().length).toBe(served);
    expect(await readAccountMoney(gateway)).toEqual(before);
    await gateway.test.context.requestLog.flush();
    expect((await sendJson(gateway, gateway.key, 'GET', `/v1/requests/${warm.response.id}`)).status).toBe(404);

    socket.send({ type: 'response.create', model: 'sim/openai-model', store: false, previous_response_id: warm.response.id, input: 'which word?' });
    const [, next] = await socket.waitFor(terminal, 2);
    expect(next.type).toBe('response.completed');
    const upstream = JSON.stringify(gateway.simulator.received().at(-1)?.body);
    expect(upstream).toContain('the code word is amber');
    expect(upstream).toContain('which word?');

    socket.send({ type: 'response.create', generate: 'no', model: 'sim/openai-model', input: 'x' });
    const [refused] = await socket.waitFor((message) => message.type === 'error');
    expect(refused.error).toMatchObject({ code: 'invalid_request', param: 'generate' });
    socket.close();
  });

  it('charges an abandoned response for what was generated, like an abandoned stream', async () => {
    const before = await readAccountMoney(gateway);
    const socket = new SocketClient(gateway.url, await newKey());
    await socket.opened();
    socket.send({ type: 'response.create', model: 'sim/openai-model', input: 'hello there [[sim:stall_after=3]]' });
    const [created] = await socket.waitFor((message) => message.type === 'response.created');
    await socket.waitFor((message) => message.type === 'response.output_text.delta');
    socket.close();
    await socket.closed;
    const id = created.response.id as string;
    let row: Json | undefined;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      await gateway.test.context.requestLog.flush();
      const answer = await sendJson(gateway, gateway.key, 'GET', `/v1/requests/${id}`);
      if (answer.status === 200) {
        row = ((await answer.json()) as Json).data;
        if (row?.status === 'aborted') break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(row).toMatchObject({ id, status: 'aborted' });
    expect(row!.cost).toBeGreaterThan(0);
    const after = await readAccountMoney(gateway);
    expect(after.usage - before.usage).toBe(BigInt(Math.round(row!.cost * 1e9)));
    expect(after.reserved).toBe(0n);
  });

  it('closes a wrong key with the error envelope and code 1008', async () => {
    const socket = new SocketClient(gateway.url, 'sy_wrong_key_0000000000000000');
    const closed = await socket.closed;
    expect(closed.code).toBe(1008);
    expect(socket.messages).toEqual([
      { type: 'error', status: 401, error: expect.objectContaining({ code: 'invalid_api_key', type: 'authentication_error', status: 401 }) },
    ]);
  });

  it('answers a bad message with an error message and keeps the connection for the next', async () => {
    const socket = new SocketClient(gateway.url, await newKey());
    await socket.opened();
    socket.send({ type: 'session.update' });
    socket.send({ type: 'response.create', model: 'sim/openai-model', input: 'x', previous_response_id: 'resp_nowhere' });
    socket.send({ type: 'response.create', model: 'sim/openai-model', input: 'still here' });
    await socket.waitFor(terminal);
    expect(socket.messages[0]).toMatchObject({ type: 'error', status: 400, error: { code: 'invalid_request', param: 'type' } });
    expect(socket.messages[1]).toMatchObject({ type: 'error', status: 404, error: { code: 'previous_response_not_found', param: 'previous_response_id' } });
    socket.close();
  });

  it('refuses response.create messages beyond 8 waiting or running on one connection, and runs the others', async () => {
    const socket = new SocketClient(gateway.url, await newKey());
    await socket.opened();
    for (let index = 0; index < 10; index += 1) socket.send({ type: 'response.create', model: 'sim/openai-model', input: `burst ${index} [[sim:stall_after=0]]` });
    const refused = await socket.waitFor((message) => message.type === 'error', 2);
    expect(refused[0]).toMatchObject({ status: 429, error: { code: 'rate_limited', metadata: { limit_type: 'queued_responses' } } });
    socket.close();
    await socket.closed;
  });

  it('caps the sockets one key holds open, and closes an idle one', async () => {
    const key = await newKey();
    const first = new SocketClient(gateway.url, key);
    const second = new SocketClient(gateway.url, key);
    await Promise.all([first.opened(), second.opened()]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const third = new SocketClient(gateway.url, key);
    expect((await third.closed).code).toBe(1008);
    expect(third.messages[0]).toMatchObject({ type: 'error', status: 429, error: { code: 'rate_limited', metadata: { limit_type: 'open_sockets' } } });
    // Nothing under way for the idle timeout (1.5 s here): closed normally.
    const [one, two] = await Promise.all([first.closed, second.closed]);
    expect([one.code, two.code]).toEqual([1000, 1000]);
    expect(one.reason).toBe('idle timeout');
  });

  it('answers a plain GET /v1/responses with 405 and Allow: POST', async () => {
    const answer = await sendJson(gateway, gateway.key, 'GET', '/v1/responses');
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
  });
});
