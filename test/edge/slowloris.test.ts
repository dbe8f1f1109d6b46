import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import type { AddressInfo } from 'node:net';
import { runSlowClients } from './slow-clients.js';

// Short timeouts so the run takes seconds; bench/slowloris.ts runs the same with the defaults.
const headersTimeoutMs = 1_500;
const requestTimeoutMs = 2_500;
const checkMs = 250;

describe('slow clients are closed within the timeouts while normal clients are served', () => {
  let gateway: SimulatedGateway;
  let port: number;
  beforeAll(async () => {
    gateway = await startSimulatedGateway({
      configure: (config) => {
        config.server.http = { headersTimeoutMs, requestTimeoutMs, timeoutCheckIntervalMs: checkMs };
      },
    });
    port = (gateway.test.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => gateway?.close());

  it('closes 100 slow-header and 100 slow-body connections and answers 408 in time', async () => {
    const slowHeaders = runSlowClients(port, 'headers', 100, 200, 15_000);
    const slowBodies = runSlowClients(port, 'body', 100, 200, 15_000, gateway.key);
    // Normal clients meanwhile: every one is answered, quickly.
    const latencies: number[] = [];
    for (let round = 0; round < 20; round += 1) {
      const started = Date.now();
      const response = await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', { model: 'sim/openai-model', messages: [{ role: 'user', content: 'hi' }] });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      latencies.push(Date.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [headers, bodies] = await Promise.all([slowHeaders, slowBodies]);
    for (const result of headers) {
      expect(result.closedAfterMs).not.toBeNull();
      expect(result.closedAfterMs!).toBeLessThanOrEqual(headersTimeoutMs + 2 * checkMs + 1_000);
    }
    for (const result of bodies) {
      expect(result.closedAfterMs).not.toBeNull();
      expect(result.closedAfterMs!).toBeLessThanOrEqual(requestTimeoutMs + 2 * checkMs + 1_000);
      expect(result.status).toBe(408);
    }
    expect(Math.max(...latencies)).toBeLessThan(1_000);
  }, 30_000);

  it('refuses large uploads beyond the concurrent cap with 503 and serves again afterwards', async () => {
    // This gateway has the default cap (8 bodies over 1 MB): open 8 trickling large uploads and
    // check the ninth is refused at once.
    const { sent, closed: holders } = runSlowClientsLarge(port, gateway.key, 8, 2 * 1024 * 1024);
    // Every holder's headers on the wire (not a fixed pause, which a busy machine outran), then a
    // moment for the gateway to read them.
    await sent;
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refused = await fetch(`${gateway.url}/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(refused.status).toBe(503);
    const body = (await refused.json()) as { error: { code: string; status: number } };
    expect(body.error).toMatchObject({ code: 'service_unavailable', status: 503 });
    await holders;
    const served = await sendJson(gateway, gateway.key, 'GET', '/v1/keys');
    expect(served.status).toBe(200);
  }, 30_000);
});

/** Large uploads that send their headers and then trickle: each holds an upload slot until the request timeout. */
function runSlowClientsLarge(port: number, key: string, count: number, length: number): { sent: Promise<unknown>; closed: Promise<unknown> } {
  const sent: Promise<void>[] = [];
  const closed = Array.from({ length: count }, () => {
    let written!: () => void;
    sent.push(new Promise<void>((resolve) => (written = resolve)));
    return import('node:net').then(
      ({ connect }) =>
        new Promise<void>((resolve) => {
          const socket = connect(port, '127.0.0.1');
          socket.on('error', () => undefined);
          socket.on('close', () => resolve());
          socket.resume();
          socket.on('connect', () => socket.write(`POST /v1/keys HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n{`, () => written()));
        }),
    );
  });
  return { sent: Promise.all(sent), closed: Promise.all(closed) };
}
