import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@switchyard/simulator';
import { readSseEvents } from '../helpers/read-sse.js';
import { simulatedCatalogYaml } from '../helpers/simulated-gateway.js';
import { SocketClient, terminal, type Json } from '../helpers/socket-client.js';
import { killSpawnedServers, spawnServer, switchyardBin } from '../helpers/spawn-server.js';

let simulator: Simulator;
let directory: string;

beforeAll(async () => {
  // 20 tokens a second: a 60-token answer lasts three seconds, across the drain.
  simulator = await startSimulator({ tokensPerSecond: 20 });
  directory = mkdtempSync(join(tmpdir(), 'switchyard-ws-shutdown-'));
  writeFileSync(join(directory, 'switchyard.yaml'), simulatedCatalogYaml(simulator.url));
});
afterAll(async () => {
  killSpawnedServers();
  await simulator.close();
});

async function startServer(name: string, times: { drainMs: number; graceMs: number }) {
  const env = {
    DATABASE_URL: `sqlite:${join(directory, `${name}.db`)}`,
    SWITCHYARD_CONFIG: join(directory, 'switchyard.yaml'),
    LOG_LEVEL: 'silent',
    SWITCHYARD_SHUTDOWN_DRAIN_MS: String(times.drainMs),
    SWITCHYARD_SHUTDOWN_GRACE_MS: String(times.graceMs),
  };
  const created = spawnSync(process.execPath, [switchyardBin, 'admin', 'create-account', '--credits', '10'], { env: { ...process.env, ...env }, encoding: 'utf8' });
  const { key } = JSON.parse(created.stdout) as { key: string };
  const { child, url } = await spawnServer(env);
  return { child, url, key };
}

function waitForExit(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));
}

const longAnswer = (tokens: number, text: string) => ({ type: 'response.create', model: 'sim/openai-model', max_output_tokens: 500, input: `[[sim:reply_tokens=${tokens}]] ${text}` });

// Starting a server (and the account command before it) takes seconds, tens of them on a loaded machine.
/**
 * Issue 45, item 4: at SIGTERM, Responses WebSocket answers under way finish within the grace
 * period like SSE streams, on a real `switchyard serve` process; new messages are refused; an
 * answer the grace period cuts ends with `response.failed` before the close.
 */
describe('SIGTERM with Responses WebSockets open', () => {
  it('lets the WebSocket answer under way finish beside an SSE stream, refuses new messages, and closes with 1001', async () => {
    const { child, url, key } = await startServer('finish', { drainMs: 500, graceMs: 20_000 });
    const socket = new SocketClient(url, key);
    const idle = new SocketClient(url, key);
    await Promise.all([socket.opened(), idle.opened()]);
    const sse = fetch(`${url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...longAnswer(60, 'over SSE'), type: undefined, stream: true }),
    }).then(readSseEvents);
    socket.send(longAnswer(60, 'over the socket'));
    await socket.waitFor((message) => message.type === 'response.output_text.delta');

    const exited = waitForExit(child);
    child.kill('SIGTERM');
    // The idle socket goes at once, with "going away", so that its client reconnects elsewhere.
    expect((await idle.closed).code).toBe(1001);
    socket.send(longAnswer(2, 'sent after SIGTERM'));
    const [refused] = await socket.waitFor((message) => message.type === 'error');
    expect(refused).toMatchObject({ status: 503, error: { code: 'service_unavailable' } });

    const [end] = await socket.waitFor(terminal);
    expect(end.type).toBe('response.completed');
    expect(end.response.usage.output_tokens).toBe(60);
    expect(await socket.closed).toEqual({ code: 1001, reason: 'server shutting down' });
    const sseEvents = (await sse).map((event) => JSON.parse(event.data) as Json);
    expect(sseEvents.at(-1)?.type).toBe('response.completed');
    expect(await exited).toBe(0);
  }, 240_000);

  it('ends an answer the grace period cuts with response.failed before the close, and exits', async () => {
    const { child, url, key } = await startServer('cut', { drainMs: 0, graceMs: 1_000 });
    const socket = new SocketClient(url, key);
    await socket.opened();
    // 400 tokens at 20 a second: 20 s, far past the grace period.
    socket.send(longAnswer(400, 'too long for the grace period'));
    await socket.waitFor((message) => message.type === 'response.output_text.delta');
    const exited = waitForExit(child);
    const signalledAt = Date.now();
    child.kill('SIGTERM');

    const [end] = await socket.waitFor(terminal, 1, 15_000);
    expect(end.type).toBe('response.failed');
    expect(end.response.error).toMatchObject({ code: 'service_unavailable', message: expect.stringContaining('shut down') });
    // What was generated is in the output, as an incomplete message.
    expect(end.response.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
    expect(socket.messages.indexOf(end)).toBe(socket.messages.length - 1);
    expect((await socket.closed).code).toBe(1001);
    expect(await exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
  }, 240_000);
});
