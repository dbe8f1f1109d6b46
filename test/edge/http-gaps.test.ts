import { connect, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { sendRaw } from './raw-http.js';

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  [field: string]: unknown;
}

describe('edge: answers that used to leave the envelope, the log or the client behind', () => {
  let gateway: SimulatedGateway;
  let port: number;
  const lines: LogLine[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as LogLine);
        done();
      },
    });
    gateway = await startSimulatedGateway({ logger: pino({ level: 'info' }, sink), configure: (config) => (config.server.bodyLimitBytes = 64 * 1024) });
    port = (gateway.test.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => gateway?.close());

  it('answers an HTTP/1.1 request without Host with 400 in the envelope, not Node’s bare 400', async () => {
    const answer = await sendRaw(port, ['GET /v1/models HTTP/1.1\r\n\r\n']);
    expect(answer.status).toBe(400);
    const body = JSON.parse(answer.body) as { error: { code: string; message: string; metadata: { request_id: string } } };
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toContain('Host');
    expect(body.error.metadata.request_id).toBe(answer.headers['x-request-id']);
    expect(answer.closedAfterMs).not.toBeNull();
    // With Host, the same request is served.
    expect((await sendRaw(port, ['GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n'])).status).toBe(200);
  });

  it.each([
    ['a declared length over the limit', 'content-length: 600000\r\n', (chunk: string) => chunk, ''],
    ['a chunked body that grows past the limit', 'transfer-encoding: chunked\r\n', (chunk: string) => `${chunk.length.toString(16)}\r\n${chunk}\r\n`, '0\r\n\r\n'],
  ])('keeps the 413 readable for a client still sending %s, that reads only once it has sent everything', async (_label, framing, frame, last) => {
    const socket = connect(port, '127.0.0.1');
    let failure: Error | undefined;
    socket.on('error', (error) => (failure = error));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${gateway.key}\r\ncontent-type: application/json\r\n${framing}\r\n`);
    // 600 KB in 16 KB pieces, 10 ms apart; nothing is read meanwhile (the socket stays paused).
    const piece = 'x'.repeat(16 * 1024);
    for (let sent = 0; sent < 600_000 && !socket.destroyed; sent += piece.length) {
      socket.write(frame(piece.slice(0, Math.min(piece.length, 600_000 - sent))));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    if (last) socket.write(last);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    if (!socket.destroyed) await new Promise((resolve) => socket.once('close', resolve));
    expect(failure).toBeUndefined();
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received).toContain('"code":"payload_too_large"');
  }, 20_000);

  it('logs a provider connection failure (status 0) with its text and transport cause, and names it on the request’s own line', async () => {
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', { model: 'sim/openai-model', messages: [{ role: 'user', content: 'hi [[sim:disconnect_after=0]]' }] });
    expect(response.status).toBe(502);
    const requestId = response.headers.get('x-request-id');
    const failure = lines.find((line) => line.msg === 'upstream failed' && line.status === 0);
    expect(failure).toBeDefined();
    expect(failure).toMatchObject({ level: 40, provider: 'sim-openai', code: 'upstream_error' });
    expect(String(failure!.detail)).toContain('sim-openai unreachable');
    expect(failure!.cause).toMatchObject({ code: expect.stringMatching(/^(UND_ERR_SOCKET|ECONNRESET)$/) });
    const refused = lines.find((line) => line.msg === 'request refused' && line.reqId === requestId);
    expect(refused).toMatchObject({ status: 502, code: 'upstream_error', upstream: { provider: 'sim-openai', status: 0 } });
  });
});
