// The load generator: its own process, so its CPU is never counted against a proxy. Started by
// run-load-phase.ts with an IPC channel: it receives a LoadJob, runs the warm-up, says "warm",
// waits for "go" (the driver reads the proxy's CPU counters in between), runs the measured
// requests at fixed concurrency and sends back a LoadResult.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export interface LoadJob {
  /** Origin, e.g. http://127.0.0.1:8080 */
  origin: string;
  path: string;
  headers: Record<string, string>;
  /** Round robin over several instances: worker i sends to `origins[i % length]` (default: `origin`). */
  origins?: string[];
  /** Several accounts: worker i sends `headerSets[i % length]` (default: `headers`). */
  headerSets?: Array<Record<string, string>>;
  body: string;
  /** The API style, for checking the first answers (default chat). */
  style?: 'chat' | 'messages' | 'embeddings';
  stream: boolean;
  concurrency: number;
  warmupRequests: number;
  requests: number;
  /** The measured phase stops issuing requests after this long (in-flight ones finish). */
  maxDurationMs: number;
}

export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export interface LoadResult {
  completed: number;
  errors: number;
  firstError: string | null;
  durationMs: number;
  throughput: number;
  /** Milliseconds from sending to the last byte of the answer. */
  latencyMs: LatencySummary;
  /** Streams: milliseconds to the first body byte. */
  firstByteMs: LatencySummary | null;
  /** Streams: SSE events per answer, not counting `data: [DONE]`. */
  eventsPerRequest: number | null;
  bytesPerRequest: number;
  /** The load generator's own CPU per request (for reference; not the proxy's). */
  clientCpuMicrosPerRequest: number;
}

type Message = { type: 'job'; job: LoadJob } | { type: 'go' };

interface Sample {
  latency: number;
  firstByte: number;
  events: number;
  bytes: number;
}

const DONE_MARKER = Buffer.from('data: [DONE]');
/** A Messages stream ends with `message_stop` and has no `[DONE]`. */
const MESSAGE_STOP_MARKER = Buffer.from('"message_stop"');
const NEWLINE = 0x0a;

async function runOne(pool: Pool, job: LoadJob, sample: Sample, validate: boolean, headers = job.headers): Promise<void> {
  const started = performance.now();
  const response = await pool.request({ method: 'POST', path: job.path, headers, body: job.body });
  let firstByte = 0;
  let bytes = 0;
  let events = 0;
  let previous = 0;
  let tail: Buffer = Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    if (firstByte === 0) firstByte = performance.now() - started;
    bytes += chunk.length;
    if (job.stream) {
      // An SSE event ends with a blank line: count "\n\n", also when split across chunks.
      for (let index = 0; index < chunk.length; index++) {
        const byte = chunk[index];
        if (byte === NEWLINE && previous === NEWLINE) events++;
        previous = byte;
      }
      tail = chunk.length >= 64 ? chunk.subarray(chunk.length - 64) : Buffer.concat([tail, chunk]).subarray(-64);
    }
    if (validate || response.statusCode !== 200) chunks.push(chunk);
  }
  const latency = performance.now() - started;
  if (response.statusCode !== 200) {
    throw new Error(`HTTP ${response.statusCode}: ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`);
  }
  if (job.stream && job.style === 'messages') {
    if (tail.indexOf(MESSAGE_STOP_MARKER) === -1) throw new Error('stream did not end with message_stop');
  } else if (job.stream) {
    if (tail.indexOf(DONE_MARKER) === -1) throw new Error('stream did not end with data: [DONE]');
    events--;
  }
  if (validate) check(job, Buffer.concat(chunks).toString('utf8'));
  sample.latency = latency;
  sample.firstByte = firstByte;
  sample.events = events;
  sample.bytes = bytes;
}

/** The first answers of each worker are read fully: they must be real chat completions. */
function check(job: LoadJob, text: string): void {
  if (job.style === 'embeddings') {
    const body = JSON.parse(text) as { data?: Array<{ embedding?: unknown }> };
    if (!Array.isArray(body.data) || body.data.length === 0 || typeof body.data[0].embedding !== 'string') throw new Error(`not an embeddings list in base64: ${text.slice(0, 200)}`);
    return;
  }
  if (job.style === 'messages') {
    if (job.stream) {
      if (!text.includes('event: message_stop')) throw new Error(`not a complete Messages stream: ${text.slice(0, 200)}`);
      return;
    }
    const message = JSON.parse(text) as { content?: Array<{ text?: unknown }> };
    if (typeof message.content?.[0]?.text !== 'string') throw new Error(`not a Message: ${text.slice(0, 200)}`);
    return;
  }
  if (job.stream) {
    if (!text.includes('"chat.completion.chunk"')) throw new Error(`not a chat completion stream: ${text.slice(0, 200)}`);
    return;
  }
  const body = JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown } }> };
  const content = body.choices?.[0]?.message?.content;
  if (typeof content !== 'string' || content.length === 0) throw new Error(`not a chat completion: ${text.slice(0, 200)}`);
}

interface PhaseOutcome {
  samples: Sample[];
  errors: number;
  firstError: string | null;
  durationMs: number;
}

async function runPhase(pools: Pool[], job: LoadJob, requests: number, maxDurationMs: number): Promise<PhaseOutcome> {
  const samples: Sample[] = [];
  let issued = 0;
  let errors = 0;
  let firstError: string | null = null;
  const started = performance.now();
  const deadline = started + maxDurationMs;
  const worker = async (index: number) => {
    const pool = pools[index % pools.length];
    const headers = job.headerSets ? job.headerSets[index % job.headerSets.length] : job.headers;
    let own = 0;
    while (issued < requests && performance.now() < deadline) {
      issued++;
      const sample: Sample = { latency: 0, firstByte: 0, events: 0, bytes: 0 };
      try {
        await runOne(pool, job, sample, own < 2, headers);
        samples.push(sample);
      } catch (error) {
        errors++;
        firstError ??= (error as Error).message;
      }
      own++;
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, (_, index) => worker(index)));
  return { samples, errors, firstError, durationMs: performance.now() - started };
}

function summarize(values: number[]): LatencySummary {
  const sorted = Float64Array.from(values).sort();
  const at = (fraction: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]);
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1), mean: sorted.length === 0 ? 0 : total / sorted.length };
}

async function main(job: LoadJob, waitForGo: () => Promise<void>): Promise<LoadResult> {
  const origins = job.origins ?? [job.origin];
  const pools = origins.map((origin) => new Pool(origin, { connections: Math.ceil(job.concurrency / origins.length), keepAliveTimeout: 60_000, headersTimeout: 30_000, bodyTimeout: 30_000 }));
  try {
    if (job.warmupRequests > 0) await runPhase(pools, job, job.warmupRequests, job.maxDurationMs);
    await waitForGo();
    const cpuBefore = process.cpuUsage();
    const outcome = await runPhase(pools, job, job.requests, job.maxDurationMs);
    const cpu = process.cpuUsage(cpuBefore);
    const completed = outcome.samples.length;
    return {
      completed,
      errors: outcome.errors,
      firstError: outcome.firstError,
      durationMs: outcome.durationMs,
      throughput: completed / (outcome.durationMs / 1000),
      latencyMs: summarize(outcome.samples.map((sample) => sample.latency)),
      firstByteMs: job.stream ? summarize(outcome.samples.map((sample) => sample.firstByte)) : null,
      eventsPerRequest: job.stream && completed > 0 ? outcome.samples.reduce((sum, sample) => sum + sample.events, 0) / completed : null,
      bytesPerRequest: completed > 0 ? outcome.samples.reduce((sum, sample) => sum + sample.bytes, 0) / completed : 0,
      clientCpuMicrosPerRequest: completed > 0 ? (cpu.user + cpu.system) / (completed + outcome.errors) : 0,
    };
  } finally {
    await Promise.all(pools.map((pool) => pool.destroy()));
  }
}

if (process.send) {
  const send = process.send.bind(process);
  let go: (() => void) | undefined;
  const goSignal = new Promise<void>((resolve) => (go = resolve));
  process.on('disconnect', () => process.exit(1));
  process.on('message', (message: Message) => {
    if (message.type === 'go') go?.();
    if (message.type !== 'job') return;
    main(message.job, async () => {
      send({ type: 'warm' });
      await goSignal;
    })
      .then((result) => send({ type: 'result', result }, () => process.exit(0)))
      .catch((error: unknown) => send({ type: 'failed', message: (error as Error).stack ?? String(error) }, () => process.exit(1)));
  });
}
