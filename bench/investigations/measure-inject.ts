import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';

export interface Timing {
  url: string;
  runs: number;
  medianMs: number;
  p95Ms: number;
  minMs: number;
  maxMs: number;
  /** Rows in the answer's `data` (a list), in its `by_day` (usage), or 1 (one object), as a sanity check. */
  rows: number;
}

/**
 * Times one GET through the whole application (auth, validation, query, encoding) with
 * `inject`, after a few unmeasured warm-up calls. Every answer must be 200.
 */
export async function measureInject(app: FastifyInstance, url: string, key: string, runs: number, warmup = 3): Promise<Timing> {
  const call = async () => {
    const response = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 300)}`);
    return response;
  };
  for (let index = 0; index < warmup; index += 1) await call();
  const samples: number[] = [];
  let rows = 0;
  for (let index = 0; index < runs; index += 1) {
    const started = performance.now();
    const response = await call();
    samples.push(performance.now() - started);
    const data = (response.json() as { data: unknown[] | { by_day?: unknown[] } }).data;
    rows = Array.isArray(data) ? data.length : (data.by_day?.length ?? 1);
  }
  samples.sort((left, right) => left - right);
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    url,
    runs,
    medianMs: round(samples[Math.floor((samples.length - 1) / 2)]),
    p95Ms: round(samples[Math.min(samples.length - 1, Math.ceil(samples.length * 0.95) - 1)]),
    minMs: round(samples[0]),
    maxMs: round(samples[samples.length - 1]),
    rows,
  };
}
