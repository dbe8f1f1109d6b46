import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCommandCpuMicros } from '../../bench/process-stats.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-process-stats-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('readCommandCpuMicros', () => {
  it('sums the CPU of every process running a command, and reads nothing for a command not running', async () => {
    // `yes` under a name of its own, so that no other process on the machine shares it.
    const command = `sy-probe-${process.pid % 100000}`;
    const binary = join(directory, command);
    copyFileSync('/usr/bin/yes', binary);
    expect(readCommandCpuMicros(command)).toBe(0);
    const output = openSync('/dev/null', 'w');
    const children = [spawn(binary, [], { stdio: ['ignore', output, 'ignore'] }), spawn(binary, [], { stdio: ['ignore', output, 'ignore'] })];
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 600));
    const used = readCommandCpuMicros(command)!;
    const elapsedMicros = (performance.now() - started) * 1000;
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(children.map((child) => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve)))));
    // Two busy processes on two cores: at least a tick of work, at most both cores for the whole time.
    expect(used).toBeGreaterThan(10_000);
    expect(used).toBeLessThanOrEqual(2 * elapsedMicros + 20_000);
    expect(readCommandCpuMicros(command)).toBe(0);
  });
});
