import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ScaleResults } from './run-scale.js';

export type { ScaleResults } from './run-scale.js';


const cell = (value: number | null) => (value === null ? '–' : value.toFixed(1));

/** The Markdown table of one run: a row per read, both stores side by side, with each goal's verdict. */
export function formatScaleTable(results: ScaleResults): string {
  const stores = results.stores;
  const head = ['read', ...stores.flatMap((store) => [`${store.store} p50 / p99 ms`, `${store.store} /health median / worst ms`, `${store.store}`])];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  const names = [...new Set(stores.flatMap((store) => store.reads.map((read) => read.name)))];
  for (const name of names) {
    const cells = stores.flatMap((store) => {
      const read = store.reads.find((candidate) => candidate.name === name);
      if (!read) return ['–', '–', '–'];
      const verdict = read.problem ? `FAIL (wrong: ${read.problem})` : read.pass ? 'pass' : 'FAIL';
      return [`${cell(read.p50Ms)} / ${cell(read.p99Ms)}`, `${cell(read.medianHealthMs)} / ${cell(read.worstHealthMs)}`, verdict];
    });
    lines.push(`| ${name} | ${cells.join(' | ')} |`);
  }
  lines.push('');
  for (const store of stores) {
    const { readsP99, eventLoop } = store.goals;
    lines.push(`${store.store}: every read p99 < ${readsP99.limitMs} ms: ${readsP99.pass ? 'PASS' : `FAIL (${readsP99.failing.join(', ')})`}`);
    if (eventLoop) {
      const metric = eventLoop.worstLoopDelayMs === null ? '' : `; the server's own event-loop delay metric: ${cell(eventLoop.worstLoopDelayMs)} ms`;
      lines.push(`${store.store}: worst event-loop delay < ${eventLoop.limitMs} ms (slowest /health ping ${cell(eventLoop.worstHealthMs)} ms${metric}): ${eventLoop.pass ? 'PASS' : 'FAIL'}`);
    }
    const cpu = store.seed.cpuSeconds === null ? '' : `, ${store.seed.cpuSeconds} s CPU`;
    const seed = store.seed.reused ? `reused the seed of ${store.seed.seededAt} (seeded in ${store.seed.seconds} s${cpu})` : `seeded in ${store.seed.seconds} s${cpu}`;
    lines.push(`${store.store}: ${seed}: ${Object.entries(store.seed.phases).map(([phase, seconds]) => `${phase} ${seconds} s`).join(', ')}`);
  }
  for (const [store, why] of Object.entries(results.skipped)) lines.push(`${store}: SKIPPED (${why})`);
  return lines.join('\n');
}

/** Writes scale-<timestamp>.json and scale-latest.json into `directory`; returns the timestamped path. */
export async function writeScaleResults(results: ScaleResults, directory: string): Promise<string> {
  await mkdir(directory, { recursive: true });
  const text = `${JSON.stringify(results, null, 2)}\n`;
  const file = join(directory, `scale-${results.startedAt.replace(/[:.]/g, '-')}.json`);
  await writeFile(file, text);
  await writeFile(join(directory, 'scale-latest.json'), text);
  return file;
}
