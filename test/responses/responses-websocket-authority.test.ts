import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { captureLogLines, logLevels } from '../helpers/capture-log-lines.js';
import { readAccountMoney, sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { SocketClient, terminal, type Json } from '../helpers/socket-client.js';

/**
 * Issue 45: an open Responses WebSocket holds no authority of its own. Every `response.create`
 * is checked as an HTTP request is — the key (revoked: an `error` message, then close 1008), its
 * limits as they stand now, the funds — and every refusal is logged at its HTTP twin's level.
 */
describe('Responses WebSocket: authority per message', () => {
  let gateway: SimulatedGateway;
  const log = captureLogLines();
  beforeAll(async () => {
    gateway = await startSimulatedGateway({ credits: 100, logger: log.logger });
  });
  afterAll(async () => {
    await gateway?.close();
  });
  afterEach(() => {
    expect(log.lines.filter((line) => line.level >= logLevels.error)).toEqual([]);
  });

  const newKey = async (body: Json = {}) => {
    const answer = await sendJson(gateway, gateway.key, 'POST', '/v1/keys', { name: 'socket authority', ...body });
    const created = (await answer.json()) as Json;
    return { key: created.key as string, id: created.data.id as string };
  };
  const openSocket = async (key: string) => {
    const socket = new SocketClient(gateway.url, key);
    await socket.opened();
    return socket;
  };
  const errors = (socket: SocketClient) => socket.messages.filter((message) => message.type === 'error');
  async function loggedRowsOf(keyId: string) {
    await gateway.test.context.requestLog.flush();
    return gateway.test.context.store.db.selectFrom('requests').select(['id', 'status']).where('key_id', '=', keyId).execute();
  }

  it('closes the socket of a revoked key with an error and 1008 at its next message: no model call, no charge, no log row', async () => {
    const { key, id } = await newKey();
    const socket = await openSocket(key);
    socket.send({ type: 'response.create', model: 'sim/openai-model', input: 'before the revocation' });
    const [first] = await socket.waitFor(terminal);
    expect(first.type).toBe('response.completed');

    expect((await sendJson(gateway, gateway.key, 'DELETE', `/v1/keys/${id}`)).status).toBe(200);
    expect((await sendJson(gateway, key, 'POST', '/v1/responses', { model: 'sim/openai-model', input: 'over HTTP' })).status).toBe(401);
    const before = await readAccountMoney(gateway);
    const served = gateway.simulator.received().length;

    // Continuing one of the key's own stored responses changes nothing.
    socket.send({ type: 'response.create', model: 'sim/openai-model', previous_response_id: first.response.id, input: 'after the revocation' });
    socket.send({ type: 'response.create', model: 'sim/openai-model', input: 'and once more' });
    const closed = await socket.closed;
    expect(closed.code).toBe(1008);
    expect(errors(socket)).toEqual([
      { type: 'error', status: 401, error: expect.objectContaining({ code: 'invalid_api_key', type: 'authentication_error' }) },
    ]);
    expect(socket.messages.filter((message) => message.type === 'response.created')).toHaveLength(1);
    expect(gateway.simulator.received().length).toBe(served);
    expect(await readAccountMoney(gateway)).toEqual(before);
    expect(await loggedRowsOf(id)).toEqual([{ id: first.response.id, status: 'completed' }]);
  });

  it('applies a key limit changed between two messages to the next one, as HTTP does, and keeps the socket open', async () => {
    const { key, id } = await newKey();
    const socket = await openSocket(key);
    const create = (input: string) => socket.send({ type: 'response.create', model: 'sim/openai-model', input });
    create('first');
    await socket.waitFor(terminal);

    // A price cap the model's price is above: no route (503), the twin of HTTP's answer.
    await sendJson(gateway, gateway.key, 'PATCH', `/v1/keys/${id}/limit`, { max_price: { completion: 1 } });
    create('over the price cap');
    const [capped] = await socket.waitFor((message) => message.type === 'error');
    const overHttp = await sendJson(gateway, key, 'POST', '/v1/responses', { model: 'sim/openai-model', input: 'over HTTP' });
    expect(capped).toMatchObject({ status: overHttp.status, error: { code: ((await overHttp.json()) as Json).error.code } });
    expect(capped).toMatchObject({ status: 503, error: { code: 'no_available_provider' } });

    // A rate limit set now counts from now: one message passes, the next is 429.
    await sendJson(gateway, gateway.key, 'PATCH', `/v1/keys/${id}/limit`, { max_price: null, requests_per_minute: 1 });
    create('within the rate');
    create('over the rate');
    const [, limited] = await socket.waitFor((message) => message.type === 'error', 2);
    expect(limited).toMatchObject({ status: 429, error: { code: 'rate_limited', metadata: { limit_type: 'requests_per_minute' } } });

    // Two refusals, two answers; the socket is still open for the next message.
    expect(socket.messages.filter((message) => message.type === 'response.completed')).toHaveLength(2);
    await sendJson(gateway, gateway.key, 'PATCH', `/v1/keys/${id}/limit`, { requests_per_minute: null });
    create('all limits lifted');
    await socket.waitFor((message) => message.type === 'response.completed', 3);
    socket.close();
  });

  it('refuses with the 402 of HTTP when the key’s spending limit is used up, or the account has no funds, after the socket opened', async () => {
    // (A limit lowered while the key holds a balance lease is issue 45's item 2, on the lease side.)
    const { key, id } = await newKey();
    const socket = await openSocket(key);
    await sendJson(gateway, gateway.key, 'PATCH', `/v1/keys/${id}/limit`, { limit: 0 });
    socket.send({ type: 'response.create', model: 'sim/openai-model', input: 'over the spending limit' });
    const [limited] = await socket.waitFor((message) => message.type === 'error');
    const overHttp = await sendJson(gateway, key, 'POST', '/v1/responses', { model: 'sim/openai-model', input: 'over HTTP' });
    expect(overHttp.status).toBe(402);
    expect(limited).toMatchObject({ status: 402, error: { code: 'insufficient_balance', metadata: { limit_type: 'key_limit' } } });

    const broke = await gateway.test.createAccount({ credits: 0 });
    const brokeSocket = await openSocket(broke.key);
    brokeSocket.send({ type: 'response.create', model: 'sim/openai-model', input: 'no funds' });
    const [refused] = await brokeSocket.waitFor((message) => message.type === 'error');
    expect(refused).toMatchObject({ status: 402, error: { code: 'insufficient_balance' } });
    expect(brokeSocket.messages.filter((message) => message.type === 'response.created')).toEqual([]);
    socket.close();
    brokeSocket.close();
  });

  it('logs an unknown model over the socket as HTTP does: an info line, no error line, no stack', async () => {
    const socket = await openSocket((await newKey()).key);
    const from = log.lines.length;
    socket.send({ type: 'response.create', model: 'sim/no-such-model', input: 'x' });
    const [refused] = await socket.waitFor((message) => message.type === 'error');
    expect(refused).toMatchObject({ status: 503, error: { code: 'no_available_provider' } });
    const lines = log.lines.slice(from);
    const refusal = lines.find((line) => line.msg === 'websocket response refused');
    expect(refusal).toMatchObject({ level: logLevels.info, code: 'no_available_provider', requestId: refused.error.metadata.request_id });
    expect(refusal).not.toHaveProperty('err');
    expect(lines.filter((line) => line.level >= logLevels.warn)).toEqual([]);
    socket.close();
  });
});
