/**
 * `npm run bench:edge`: the edge's bounds against a real `switchyard serve` process.
 * 1. 2,000 concurrent open streams: the gateway's RSS before, with all open, and per stream.
 * 2. Slowloris: slow-header and slow-body connections with the default timeouts while a normal
 *    client keeps calling; when each slow connection is closed, and the normal client's latency.
 * Prints a JSON summary; figures go in bench/README.md ("Edge: slow clients and open streams").
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, request } from 'undici';
import { readMemory, round } from './process-stats.js';
import { startMinimalProxyTarget, startSimulatorProcess, startSwitchyardTarget } from './start-targets.js';

const root = resolve(import.meta.dirname, '..');
const streams = Number(process.env.EDGE_STREAMS) || 2_000;
const slowEach = Number(process.env.EDGE_SLOW) || 200;

async function main(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'switchyard-edge-bench-'));
  // Slow streams: 1 token per second, long replies, so every stream stays open while measured.
  const simulator = await startSimulatorProcess(root, { latencyMs: 0, tokensPerSecond: 1, replyTokens: 600 });
  // The same streams through bench/minimal-proxy.ts first (the floor of a Node proxy holding two
  // sockets per stream, its pool as large as the streams), then through the gateway, one at a
  // time; EDGE_TARGET=minimal or =switchyard measures one of them.
  const which = process.env.EDGE_TARGET ? [process.env.EDGE_TARGET] : ['minimal', 'switchyard'];
  const memory: Record<string, Awaited<ReturnType<typeof measureOpenStreams>>> = {};
  let slowloris: Awaited<ReturnType<typeof measureSlowloris>> | null = null;
  try {
    for (const name of which) {
      const target =
        name === 'minimal'
          ? await startMinimalProxyTarget(root, simulator, streams + 10)
          : await startSwitchyardTarget(root, simulator, { directory, logLevel: 'warn', env: { SWITCHYARD_MAX_STREAMS_PER_KEY: String(streams + 10) } });
      try {
        memory[name] = await measureOpenStreams(target.origin + (name === 'minimal' ? '/openai' : ''), target.headers, target.model, target.pid!);
        if (name !== 'minimal' && !process.env.EDGE_SKIP_SLOWLORIS) slowloris = await measureSlowloris(target.origin, target.headers, target.model);
      } finally {
        await target.stop();
      }
    }
    const ratio = memory.minimal && memory.switchyard ? { gatewayOverFloor: round(memory.switchyard.addedMb / Math.max(memory.minimal.addedMb, 0.1), 2) } : {};
    process.stdout.write(`${JSON.stringify({ streams: { ...memory, ...ratio }, slowloris }, null, 2)}\n`);
  } finally {
    await simulator.stop();
    await rm(directory, { recursive: true, force: true });
  }
}

async function measureOpenStreams(origin: string, headers: Record<string, string>, model: string, pid: number) {
  const agent = new Agent({ connections: streams + 10, pipelining: 0 });
  // Warm up (JIT, pools), then settle before the baseline.
  for (let index = 0; index < 50; index += 1) await (await call(agent, origin, headers, model, false)).body.text();
  global.gc?.();
  await sleep(1_000);
  const before = readMemory(pid)!.rssMb;
  const open = await Promise.all(Array.from({ length: streams }, async () => {
    const response = await call(agent, origin, headers, model, true);
    // Read the first event so the stream is really flowing, then hold it open without reading.
    for await (const _chunk of response.body) break;
    return response;
  }).map((opening) => opening.catch(() => null)));
  const opened = open.filter((response) => response !== null).length;
  await sleep(2_000);
  const during = readMemory(pid)!.rssMb;
  for (const response of open) response?.body.destroy();
  await agent.close().catch(() => undefined);
  await sleep(2_000);
  const after = readMemory(pid)!.rssMb;

  return { opened, rssBeforeMb: before, rssWithAllOpenMb: during, rssAfterCloseMb: after, addedMb: round(during - before, 1), perStreamKb: round(((during - before) * 1024) / Math.max(opened, 1), 1) };
}

function call(agent: Agent, origin: string, headers: Record<string, string>, model: string, stream: boolean) {
  return request(`${origin}/v1/chat/completions`, {
    method: 'POST',
    dispatcher: agent,
    headers,
    body: JSON.stringify({ model, stream, max_tokens: stream ? 600 : 5, messages: [{ role: 'user', content: 'hello' }] }),
  });
}

async function measureSlowloris(origin: string, headers: Record<string, string>, model: string) {
  const port = Number(new URL(origin).port);
  const started = Date.now();
  const slow = [
    ...Array.from({ length: slowEach }, () => trickle(port, 'headers', headers.authorization)),
    ...Array.from({ length: slowEach }, () => trickle(port, 'body', headers.authorization)),
  ];
  const latencies: number[] = [];
  let stop = false;
  const normal = (async () => {
    const agent = new Agent({ connections: 4 });
    while (!stop) {
      const at = Date.now();
      const response = await call(agent, origin, headers, model, false);
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`normal client got ${response.statusCode}`);
      latencies.push(Date.now() - at);
      await sleep(200);
    }
    await agent.close();
  })();
  const closed = await Promise.all(slow);
  stop = true;
  await normal;
  const summarize = (values: number[]) => {
    const sorted = [...values].sort((left, right) => left - right);
    return { count: sorted.length, minMs: sorted[0], medianMs: sorted[Math.floor(sorted.length / 2)], maxMs: sorted.at(-1) };
  };
  latencies.sort((left, right) => left - right);
  return {
    slowHeadersClosed: summarize(closed.slice(0, slowEach).map((result) => result.closedAfterMs)),
    slowBodiesClosed: summarize(closed.slice(slowEach).map((result) => result.closedAfterMs)),
    slowBodyStatuses: [...new Set(closed.slice(slowEach).map((result) => result.status))],
    normalClient: { requests: latencies.length, p50Ms: latencies[Math.floor(latencies.length / 2)], maxMs: latencies.at(-1) },
    totalSeconds: round((Date.now() - started) / 1000, 1),
  };
}

/** One byte every second: headers that never end, or a body that never completes. */
function trickle(port: number, kind: 'headers' | 'body', authorization: string): Promise<{ closedAfterMs: number; status: number | null }> {
  return new Promise((resolveResult) => {
    const opened = Date.now();
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received);
      resolveResult({ closedAfterMs: Date.now() - opened, status: status ? Number(status[1]) : null });
    });
    socket.on('connect', () => {
      socket.write(kind === 'headers' ? 'POST /v1/chat/completions HTTP/1.1\r\nhost: localhost\r\n' : `POST /v1/keys HTTP/1.1\r\nhost: localhost\r\nauthorization: ${authorization}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{`);
      timer = setInterval(() => socket.write(kind === 'headers' ? 'x' : ' '), 1_000);
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolveSleep) => setTimeout(resolveSleep, ms));
}

await main();
