import { readFileSync } from 'node:fs';

/** Reads a payload from this folder, as text (a recording, or one written for the tests: see SOURCES.md). */
export function readFixture(name: string): string {
  return readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');
}

export function readJsonFixture<T>(name: string): T {
  return JSON.parse(readFixture(name)) as T;
}
