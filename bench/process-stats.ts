import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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
