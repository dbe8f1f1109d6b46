import { join } from 'node:path';
import { childEnvironment, spawnChild } from './child-process.js';
import type { LoadJob, LoadResult } from './load-generator.js';
import { readCommandCpuMicros, readCpuMicros, readMemory, type MemoryReading } from './process-stats.js';
import type { TimeWindow } from './summarize-cpu-profile.js';

export interface PhaseMeasurement {
  load: LoadResult;
  /** CPU the proxy process used during the measured requests (µs), null for the direct target. */
  proxyCpuMicros: number | null;
  proxyMemory: MemoryReading | null;
  /** CPU the simulator used meanwhile (µs): shows it is not what the benchmark measures. */
  upstreamCpuMicros: number | null;
  /** CPU the database's and Redis's processes used meanwhile (µs), when `servers` named them. */
  serverCpuMicros: ServerReading | null;
  /** When the measured requests ran, on the monotonic clock (for a CPU profile's samples). */
  window: TimeWindow;
}

const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

/** The commands (`/proc/<pid>/comm`) of the scale-out targets' PostgreSQL and Redis processes. */
export interface ServerCommands {
  postgres: string;
  redis: string;
}

export interface ServerReading {
  postgres: number;
  redis: number;
}

type ChildMessage = { type: 'warm' } | { type: 'result'; result: LoadResult } | { type: 'failed'; message: string };

/**
 * Runs one load phase in a fresh load-generator process. The proxy's and the simulator's CPU
 * counters are read after the warm-up and after the measured requests, so the difference is the
 * CPU of exactly the measured window.
 */
export async function runLoadPhase(
  root: string,
  job: LoadJob,
  pids: { proxy: number | number[] | null; upstream: number; servers?: ServerCommands },
  timeoutMs: number,
): Promise<PhaseMeasurement> {
  const child = spawnChild('load generator', process.execPath, ['--import', 'tsx', join(root, 'bench', 'load-generator.ts')], {
    cwd: root,
    env: childEnvironment({}),
    ipc: true,
  });
  // Several instances: their CPU adds up (a missing reading makes the sum unknown).
  const proxies = pids.proxy === null ? [] : Array.isArray(pids.proxy) ? pids.proxy : [pids.proxy];
  const readProxyCpu = () => {
    let total = 0;
    for (const pid of proxies) {
      const micros = readCpuMicros(pid);
      if (micros === null) return null;
      total += micros;
    }
    return total;
  };
  const readProxyMemory = (): MemoryReading | null => {
    const readings = proxies.map((pid) => readMemory(pid)).filter((reading): reading is MemoryReading => reading !== null);
    if (readings.length === 0) return null;
    return { rssMb: readings.reduce((sum, reading) => sum + reading.rssMb, 0), peakRssMb: readings.reduce((sum, reading) => sum + reading.peakRssMb, 0) };
  };
  let proxyBefore: number | null = null;
  let upstreamBefore: number | null = null;
  const { servers } = pids;
  const readServerCpu = (): ServerReading | null => {
    if (!servers) return null;
    const postgres = readCommandCpuMicros(servers.postgres);
    const redis = readCommandCpuMicros(servers.redis);
    return postgres === null || redis === null ? null : { postgres, redis };
  };
  let serversBefore: ServerReading | null = null;
  let measuredFrom = 0;
  const outcome = new Promise<PhaseMeasurement>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`load phase did not finish within ${timeoutMs} ms`)), timeoutMs);
    child.process.on('message', (message: ChildMessage) => {
      if (message.type === 'warm') {
        proxyBefore = proxies.length === 0 ? null : readProxyCpu();
        upstreamBefore = readCpuMicros(pids.upstream);
        serversBefore = readServerCpu();
        measuredFrom = monotonicMicros();
        child.process.send({ type: 'go' });
      } else if (message.type === 'result') {
        clearTimeout(timer);
        const window = { fromMicros: measuredFrom, toMicros: monotonicMicros() };
        const proxyAfter = proxies.length === 0 ? null : readProxyCpu();
        const upstreamAfter = readCpuMicros(pids.upstream);
        const serversAfter = readServerCpu();
        const serverCpuMicros =
          serversAfter === null || serversBefore === null ? null : { postgres: serversAfter.postgres - serversBefore.postgres, redis: serversAfter.redis - serversBefore.redis };
        resolve({
          load: message.result,
          proxyCpuMicros: proxyAfter === null || proxyBefore === null ? null : proxyAfter - proxyBefore,
          proxyMemory: proxies.length === 0 ? null : readProxyMemory(),
          upstreamCpuMicros: upstreamAfter === null || upstreamBefore === null ? null : upstreamAfter - upstreamBefore,
          serverCpuMicros,
          window,
        });
      } else if (message.type === 'failed') {
        clearTimeout(timer);
        reject(new Error(`load generator failed: ${message.message}`));
      }
    });
    void child.exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`load generator exited (${how}):\n${child.outputTail()}`));
    });
  });
  child.process.send({ type: 'job', job });
  try {
    return await outcome;
  } finally {
    await child.stop(1000);
  }
}
