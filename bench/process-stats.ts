import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** Clock ticks per second of /proc/<pid>/stat (CLK_TCK, 100 on Linux almost everywhere). */
export function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/**
 * CPU time (user + system, all threads, including GC and the libuv pool) a process has used so
 * far, in microseconds, from /proc/<pid>/stat. Resolution is one clock tick (10 ms), so a phase
 * must burn at least a second of CPU for a 1 % reading. Null where /proc is not available.
 */
export function readCpuMicros(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may contain spaces: count after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const userTicks = Number(fields[11]);
  const systemTicks = Number(fields[12]);
  return ((userTicks + systemTicks) * 1_000_000) / clockTicksPerSecond();
}

/**
 * CPU time (µs) used so far by every process on this machine whose command is `command`
 * (`/proc/<pid>/comm`: `postgres` for the postmaster and all its backends and workers,
 * `redis-server`). A process that exits between two readings takes its time with it, and one
 * started between them counts from zero, so the difference of two readings is what the
 * processes alive across the window used. Null where /proc is not available.
 */
export function readCommandCpuMicros(command: string): number | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  let total = 0;
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let name: string;
    try {
      name = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (name === command) total += readCpuMicros(Number(entry)) ?? 0;
  }
  return total;
}

export interface MemoryReading {
  /** Resident set size now, MiB. */
  rssMb: number;
  /** Peak resident set size since start (VmHWM), MiB. */
  peakRssMb: number;
}

export function readMemory(pid: number): MemoryReading | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kilobytes = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: round(kilobytes('VmRSS') / 1024, 1), peakRssMb: round(kilobytes('VmHWM') / 1024, 1) };
}

export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** The machine's CPU ticks so far, busy and in all (first line of /proc/stat); null without /proc. */
export function readMachineTicks(): { busy: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal …: idle and iowait are the idle part.
    const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
    return { busy: total - fields[3] - fields[4], total };
  } catch {
    return null;
  }
}

/**
 * Waits until the machine is quiet (under `threshold` of its CPU busy over one second) before a
 * target is measured, so that what the previous target left running (PostgreSQL's checkpoints and
 * vacuum after a scale-out target, a dropped schema) is not billed to the next one. Gives up
 * after `maxMs`; answers how long it waited and the last busy share seen.
 */
export async function waitForQuietMachine(threshold = 0.15, maxMs = 30_000): Promise<{ waitedMs: number; busy: number | null }> {
  const started = Date.now();
  let busy: number | null = null;
  for (;;) {
    const before = readMachineTicks();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = readMachineTicks();
    if (!before || !after || after.total === before.total) return { waitedMs: Date.now() - started, busy: null };
    busy = (after.busy - before.busy) / (after.total - before.total);
    if (busy < threshold || Date.now() - started >= maxMs) return { waitedMs: Date.now() - started, busy };
  }
}
