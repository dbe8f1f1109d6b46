/**
 * How long the event loop was held, sampled by a 10 ms timer: the wall-clock delay of each tick
 * (what every request in flight waited) and the CPU time the process spent in that gap. The two
 * differ on a busy machine: a process that is not scheduled is delayed without working, so the
 * CPU figure is the one that tells synchronous work of ours (a 1 s tokenizer build) from the
 * machine's load.
 */
export interface EventLoopSample {
  /** Longest wall-clock delay past the timer's period, in seconds, since the previous reset. */
  maxDelaySeconds: number;
  /** Most CPU time the process used within one tick, in seconds, since the previous reset. */
  maxBusySeconds: number;
}

const periodMs = 10;

export class EventLoopMonitor {
  private maxDelayMs = 0;
  private maxBusyMicros = 0;
  private lastAt = performance.now();
  /** Process CPU (user + system, µs) at the previous tick: one `getrusage` per tick, not two. */
  private lastCpuMicros = cpuMicros();

  constructor() {
    setInterval(() => this.tick(), periodMs).unref();
  }

  /** The maxima since the previous call, which starts a new window. */
  takeSample(): EventLoopSample {
    this.tick();
    const sample = { maxDelaySeconds: this.maxDelayMs / 1000, maxBusySeconds: this.maxBusyMicros / 1e6 };
    this.maxDelayMs = 0;
    this.maxBusyMicros = 0;
    return sample;
  }

  private tick(): void {
    const now = performance.now();
    const cpu = cpuMicros();
    this.maxDelayMs = Math.max(this.maxDelayMs, now - this.lastAt - periodMs);
    this.maxBusyMicros = Math.max(this.maxBusyMicros, cpu - this.lastCpuMicros);
    this.lastAt = now;
    this.lastCpuMicros = cpu;
  }
}

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

let shared: EventLoopMonitor | undefined;

/** One per process, as there is one event loop: every metrics registry reads the same monitor. */
export function sharedEventLoopMonitor(): EventLoopMonitor {
  shared ??= new EventLoopMonitor();
  return shared;
}
