// The scale benchmark's /health pinger, in a worker thread of its own so that the driver's JSON
// parsing never delays a ping: one GET /health every `periodMs` over its own keep-alive
// connection, never two at once. On 'take' it answers with the slowest ping since the previous
// 'take' (counting one still in flight by how long it has waited so far) and their median (the
// machine's floor: what a trivial request costs at the moment) and starts a new window;
// a window with no ping answered yet (a read of 2 ms) waits for the next answer, so that every
// window has at least one.
import { Agent, request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { url, periodMs } = workerData;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
let worstMs = 0;
let latencies = [];
let pings = 0;
let failures = 0;
let sentAt = null;
let stopped = false;
let taking = false;

function answerTake() {
  const inFlightMs = sentAt === null ? 0 : performance.now() - sentAt;
  latencies.sort((left, right) => left - right);
  const medianMs = latencies.length === 0 ? 0 : latencies[Math.floor((latencies.length - 1) / 2)];
  parentPort.postMessage({ worstMs: Math.max(worstMs, inFlightMs), medianMs, pings, failures });
  worstMs = 0;
  latencies = [];
  pings = 0;
  failures = 0;
  taking = false;
}

function ping() {
  return new Promise((resolve) => {
    const call = request(url, { agent }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode === 200));
    });
    call.on('error', () => resolve(false));
    call.end();
  });
}

async function loop() {
  while (!stopped) {
    sentAt = performance.now();
    const ok = await ping();
    const tookMs = performance.now() - sentAt;
    sentAt = null;
    worstMs = Math.max(worstMs, tookMs);
    latencies.push(tookMs);
    pings += 1;
    if (!ok) failures += 1;
    if (taking) answerTake();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, periodMs - tookMs)));
  }
  agent.destroy();
}

parentPort.on('message', (message) => {
  if (message === 'take') {
    taking = true;
    if (pings > 0) answerTake();
  } else if (message === 'stop') {
    stopped = true;
    parentPort.close();
  }
});

void loop();
