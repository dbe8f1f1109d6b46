import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchmarkResult } from './run-benchmark.js';

/** Writes <timestamp>.json and latest.json into `directory`; returns the timestamped path. */
export async function writeResults(result: BenchmarkResult, directory: string): Promise<string> {
  await mkdir(directory, { recursive: true });
  const text = `${JSON.stringify(result, null, 2)}\n`;
  const file = join(directory, `${result.startedAt.replace(/[:.]/g, '-')}.json`);
  await writeFile(file, text);
  await writeFile(join(directory, 'latest.json'), text);
  return file;
}
