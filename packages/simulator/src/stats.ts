import { SIMULATOR_PROTOCOLS, type SimulatorProtocol, type SimulatorStats } from './simulator-types.js';

export interface StatsRecorder {
  recordRequest(protocol: SimulatorProtocol, model: string): void;
  recordFault(): void;
  recordOpened(): void;
  recordClosed(aborted: boolean): void;
  snapshot(): SimulatorStats;
  /** Zeroes the counters; requests still in flight stay counted as open. */
  reset(): void;
}

export function createStatsRecorder(): StatsRecorder {
  let stats = emptyStats(0);
  return {
    recordRequest(protocol, model) {
      stats.requests++;
      const entry = stats.protocols[protocol];
      entry.requests++;
      entry.models[model] = (entry.models[model] ?? 0) + 1;
    },
    recordFault() {
      stats.faultsInjected++;
    },
    recordOpened() {
      stats.open++;
      if (stats.open > stats.maxOpen) stats.maxOpen = stats.open;
    },
    recordClosed(aborted) {
      stats.open--;
      if (aborted) stats.aborted++;
    },
    snapshot: () => structuredClone(stats),
    reset() {
      stats = emptyStats(stats.open);
    },
  };
}

function emptyStats(open: number): SimulatorStats {
  const protocols = {} as SimulatorStats['protocols'];
  for (const protocol of SIMULATOR_PROTOCOLS) protocols[protocol] = { requests: 0, models: {} };
  return { requests: 0, protocols, aborted: 0, open, maxOpen: open, faultsInjected: 0 };
}
