import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { Client } from 'undici';

/** Who asks: the account's management key, its ordinary key, or the operator's admin token. */
export type Caller = 'management' | 'ordinary' | 'admin';

interface ListBody {
  data: unknown;
  next_cursor?: string | null;
}

/**
 * One read of the benchmark. `repeat`: the same URL `calls` times. `walk`: `calls` pages in a row,
 * each by the previous page's cursor. `after` pages are first walked unmeasured, so a repeated
 * read is a later page. `check` says what is wrong with an answer, if anything.
 */
export interface ScaleRead {
  name: string;
  caller: Caller;
  url: string;
  mode?: 'repeat' | 'walk';
  pages?: number;
  after?: number;
  check?: (body: ListBody) => string | null;
}

export interface ReadTiming {
  name: string;
  caller: Caller;
  url: string;
  calls: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Rows in the last answer's `data` (a list), its `by_day` (usage), or 1 (one object). */
  rows: number;
  /** The slowest /health ping while this read ran (the server's event loop as a client sees it). */
  worstHealthMs: number;
  /** The median /health ping meanwhile: what a trivial request took, the machine's own load in it. */
  medianHealthMs: number;
  healthPings: number;
  /** The server's own `switchyard_event_loop_delay_max_seconds` / `…_busy_max_seconds` over the read, in ms. */
  loopDelayMaxMs: number | null;
  loopBusyMaxMs: number | null;
  /** Null when every answer was right; otherwise what was wrong (the read then fails). */
  problem: string | null;
}

export interface TimingSettings {
  calls: number;
  /** A read stops after this long (with at least `minCalls` calls): a 3 s read is not called 100 times. */
  readSeconds: number;
  minCalls: number;
  /** A call not answered within this long is abandoned and fails its read (a SQLite year report under load took minutes). */
  callTimeoutSeconds: number;
}

/** Times `reads` one after another against `origin`, with /health pinged every 5 ms alongside. */
export async function timeScaleReads(origin: string, tokens: Record<Caller, string>, reads: ScaleRead[], settings: TimingSettings, say: (line: string) => void): Promise<ReadTiming[]> {
  const client = new Client(origin, { pipelining: 1, headersTimeout: 0, bodyTimeout: 0 });
  const pinger = new Worker(new URL('./ping-health-worker.mjs', import.meta.url), { workerData: { url: `${origin}/health`, periodMs: 5 } });
  // Status 0: no answer within the call timeout (the call is abandoned; the server may still be at it).
  const get = async (caller: Caller, url: string, timeoutMs = settings.callTimeoutSeconds * 1000): Promise<{ ms: number; status: number; text: string }> => {
    const started = performance.now();
    try {
      const response = await client.request({ method: 'GET', path: url, headers: { authorization: `Bearer ${tokens[caller]}` }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
      const text = await response.body.text();
      return { ms: performance.now() - started, status: response.statusCode, text };
    } catch (error) {
      return { ms: performance.now() - started, status: 0, text: `no answer within ${settings.callTimeoutSeconds} s (${(error as Error).message})` };
    }
  };
  // After an abandoned call, the next read waits until the server answers again, so it does not time the leftover.
  const waitForServer = () => get('admin', '/health', 3_600_000);
  const call = async (caller: Caller, url: string): Promise<{ ms: number; body: ListBody }> => {
    const { ms, status, text } = await get(caller, url);
    if (status !== 200) throw new Error(`GET ${url} (${caller}): ${describeFailure(status, text)}`);
    return { ms, body: JSON.parse(text) as ListBody };
  };
  const takePings = () =>
    new Promise<{ worstMs: number; medianMs: number; pings: number }>((resolve) => {
      pinger.once('message', resolve);
      pinger.postMessage('take');
    });
  // A server without the metric (or without /metrics) leaves the columns empty.
  const takeLoop = async () => readLoopMetrics(await get('admin', '/metrics').then((answer) => answer.text, () => null));
  try {
    const results: ReadTiming[] = [];
    for (const read of reads) {
      const next = (body: ListBody, url: string) => withCursor(url, body.next_cursor ?? null, read.name);
      let url = read.url;
      try {
        for (let page = 0; page < (read.after ?? 0); page += 1) url = next((await call(read.caller, url)).body, read.url);
      } catch (error) {
        results.push(summarize(read, [], { data: [] }, { worstMs: Number.NaN, medianMs: Number.NaN, pings: 0 }, null, `could not reach the page: ${(error as Error).message}`));
        say(`  ${read.name.padEnd(36)} WRONG: ${results[results.length - 1].problem}`);
        continue;
      }
      // One unmeasured call: connections, plans and caches warm, as in a server that has run a while.
      const warm = read.mode === 'walk' ? null : await get(read.caller, url);
      if (warm?.status === 0) {
        results.push(summarize(read, [warm.ms], { data: [] }, await takePings(), await takeLoop(), warm.text));
        say(`  ${read.name.padEnd(36)} WRONG: ${warm.text}`);
        await waitForServer();
        continue;
      }
      await takeLoop();
      await takePings();
      const samples: number[] = [];
      let body: ListBody = { data: [] };
      let problem: string | null = null;
      const started = performance.now();
      const wanted = read.mode === 'walk' ? (read.pages ?? 40) : settings.calls;
      while (samples.length < wanted) {
        if (read.mode !== 'walk' && samples.length >= settings.minCalls && performance.now() - started > settings.readSeconds * 1000) break;
        const answer = await get(read.caller, url);
        // A refused call (a statement timeout, say) is what its caller waited for: timed, and the read fails.
        samples.push(answer.ms);
        if (answer.status === 0) {
          problem ??= answer.text;
          await waitForServer();
          break;
        }
        if (answer.status !== 200) {
          problem ??= describeFailure(answer.status, answer.text);
          if (read.mode === 'walk') break;
          continue;
        }
        body = JSON.parse(answer.text) as ListBody;
        problem ??= read.check?.(body) ?? null;
        if (read.mode === 'walk' && samples.length < wanted) url = next(body, read.url);
      }
      const pings = await takePings();
      const loop = await takeLoop();
      const timing = summarize(read, samples, body, pings, loop, problem);
      results.push(timing);
      say(`  ${read.name.padEnd(36)} p50 ${fixed(timing.p50Ms)}  p99 ${fixed(timing.p99Ms)} ms  /health median ${fixed(timing.medianHealthMs)} worst ${fixed(timing.worstHealthMs)} ms  (${timing.calls} calls, ${timing.rows} rows)${problem ? `  WRONG: ${problem}` : ''}`);
    }
    return results;
  } finally {
    pinger.postMessage('stop');
    await pinger.terminate();
    await client.close();
  }
}

/** `HTTP 503 service_unavailable`: the status and the error envelope's code (or the body's start). */
function describeFailure(status: number, text: string): string {
  try {
    return `HTTP ${status} ${(JSON.parse(text) as { error: { code: string } }).error.code}`;
  } catch {
    return `HTTP ${status} ${text.slice(0, 80)}`;
  }
}

function withCursor(url: string, cursor: string | null, name: string): string {
  if (!cursor) throw new Error(`${name}: the list ended before the page the read needs (no next_cursor)`);
  const base = url.replace(/([?&])cursor=[^&]*&?/, '$1').replace(/[?&]$/, '');
  return `${base}${base.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`;
}

function readLoopMetrics(text: string | null): { delayMs: number; busyMs: number } | null {
  if (text === null) return null;
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN) * 1000;
  const delayMs = value('switchyard_event_loop_delay_max_seconds');
  return Number.isNaN(delayMs) ? null : { delayMs, busyMs: value('switchyard_event_loop_busy_max_seconds') };
}

function summarize(read: ScaleRead, samples: number[], body: ListBody, pings: { worstMs: number; medianMs: number; pings: number }, loop: { delayMs: number; busyMs: number } | null, problem: string | null): ReadTiming {
  const sorted = [...samples].sort((left, right) => left - right);
  const at = (quantile: number) => round(sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * quantile) - 1)]);
  const data = body.data as unknown[] | { by_day?: unknown[] };
  return {
    name: read.name,
    caller: read.caller,
    url: read.url,
    calls: samples.length,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: round(sorted[sorted.length - 1]),
    rows: Array.isArray(data) ? data.length : (data.by_day?.length ?? 1),
    worstHealthMs: round(pings.worstMs),
    medianHealthMs: round(pings.medianMs),
    healthPings: pings.pings,
    loopDelayMaxMs: loop ? round(loop.delayMs) : null,
    loopBusyMaxMs: loop ? round(loop.busyMs) : null,
    problem,
  };
}

const round = (value: number) => Math.round(value * 100) / 100;
const fixed = (value: number) => value.toFixed(1).padStart(8);
