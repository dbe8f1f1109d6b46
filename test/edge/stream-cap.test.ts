import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

describe('a per-key cap on open streams', () => {
  let gateway: SimulatedGateway;
  beforeAll(async () => {
    gateway = await startSimulatedGateway({ configure: (config) => (config.server.http = { maxStreamsPerKey: 2 }) });
  });
  afterAll(async () => gateway?.close());

  const open = () =>
    sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', { model: 'sim/openai-model', stream: true, messages: [{ role: 'user', content: 'hi [[sim:stall_after=3]]' }] });

  it('answers 429 open_streams past the cap, and frees the slot when a stream closes', async () => {
    const first = await open();
    const second = await open();
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await open();
    expect(third.status).toBe(429);
    const body = (await third.json()) as { error: { code: string; status: number; metadata: { limit_type: string; request_id: string } } };
    expect(body.error).toMatchObject({ code: 'rate_limited', status: 429, metadata: { limit_type: 'open_streams' } });
    expect(body.error.metadata.request_id).toBe(third.headers.get('x-request-id'));
    // The refusal has its request-log row, as every refused generation request does.
    await gateway.test.context.requestLog.flush();
    const row = (await (await sendJson(gateway, gateway.key, 'GET', `/v1/requests/${body.error.metadata.request_id}`)).json()) as { data: Record<string, unknown> };
    expect(row.data).toMatchObject({ status: 'refused', model: 'sim/openai-model', endpoint: '/chat/completions', streamed: true, provider: null, cost: 0 });
    // Non-streaming calls are not capped.
    const plain = await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', { model: 'sim/openai-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(plain.status).toBe(200);
    await first.body!.cancel();
    const deadline = Date.now() + 5_000;
    let again = await open();
    while (again.status === 429 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await open();
    }
    expect(again.status).toBe(200);
    await again.body!.cancel();
    await second.body!.cancel();
  }, 20_000);
});
