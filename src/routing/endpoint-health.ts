import type { HealthAttempt } from '../billing/paid-call.js';

/**
 * Per-endpoint health: a circuit breaker (open after consecutive failures, one half-open probe
 * after a cool-down) plus moving averages of latency and throughput for `provider.sort`.
 * Kept in memory per instance: health is a local observation of the path to the provider.
 */
export interface HealthOptions {
  failureThreshold: number;
  coolDownMs: number;
  now?: () => number;
}

interface EndpointState {
  consecutiveFailures: number;
  openedAt: number | null;
  probing: boolean;
  latencyMs: number | null;
  tokensPerSecond: number | null;
  /** Outcomes of the latest calls (true = failed), oldest first, at most `outcomeWindow`. */
  outcomes: boolean[];
}

/** How many recent calls the error rate is measured over. */
const outcomeWindow = 50;

/** One endpoint's health as the operator console shows it. */
export interface EndpointHealthSnapshot {
  key: string;
  state: 'closed' | 'open' | 'half-open';
  consecutiveFailures: number;
  latencyMs: number | null;
  /** Failed share of the last (up to 50) calls, or null before the first call. */
  errorRate: number | null;
  calls: number;
}

const smoothing = 0.2;


export class EndpointHealth {
  private readonly states = new Map<string, EndpointState>();
  private readonly now: () => number;

  constructor(private readonly options: HealthOptions) {
    this.now = options.now ?? Date.now;
  }

  static keyOf(provider: string, providerModel: string): string {
    return `${provider}\u0000${providerModel}`;
  }

  /** `closed` takes traffic; `open` is skipped while others remain; `half-open` allows one probe. */
  state(key: string): 'closed' | 'open' | 'half-open' {
    const state = this.states.get(key);
    if (!state || state.openedAt === null) return 'closed';
    if (this.now() - state.openedAt < this.options.coolDownMs) return 'open';
    return state.probing ? 'open' : 'half-open';
  }

  /**
   * Marks the start of a call; a half-open endpoint admits exactly one probe. A probe that ends
   * without a verdict gives its slot back: the endpoint is half-open again and the next call
   * probes it.
   */
  begin(key: string): HealthAttempt {
    const state = this.states.get(key);
    const probe = state !== undefined && state.openedAt !== null && this.state(key) === 'half-open';
    if (probe) state.probing = true;
    let ended = false;
    const once = (action: () => void) => {
      if (ended) return;
      ended = true;
      action();
    };
    return {
      succeeded: (latencyMs, tokensPerSecond) => once(() => this.recordSuccess(key, latencyMs, tokensPerSecond)),
      failed: () => once(() => this.recordFailure(key)),
      end: () =>
        once(() => {
          if (probe && state.probing) state.probing = false;
        }),
    };
  }

  recordSuccess(key: string, latencyMs: number, tokensPerSecond?: number): void {
    const state = this.ensure(key);
    state.consecutiveFailures = 0;
    pushOutcome(state, false);
    state.openedAt = null;
    state.probing = false;
    state.latencyMs = state.latencyMs === null ? latencyMs : state.latencyMs + smoothing * (latencyMs - state.latencyMs);
    if (tokensPerSecond !== undefined && Number.isFinite(tokensPerSecond)) {
      state.tokensPerSecond = state.tokensPerSecond === null ? tokensPerSecond : state.tokensPerSecond + smoothing * (tokensPerSecond - state.tokensPerSecond);
    }
  }

  recordFailure(key: string): void {
    const state = this.ensure(key);
    state.consecutiveFailures += 1;
    pushOutcome(state, true);
    if (state.probing || state.consecutiveFailures >= this.options.failureThreshold) {
      state.openedAt = this.now();
      state.probing = false;
    }
  }

  latency(key: string): number | null {
    return this.states.get(key)?.latencyMs ?? null;
  }

  throughput(key: string): number | null {
    return this.states.get(key)?.tokensPerSecond ?? null;
  }

  /** The observed state of one endpoint; an endpoint never called is closed with no figures. */
  snapshot(key: string): EndpointHealthSnapshot {
    const state = this.states.get(key);
    const outcomes = state?.outcomes ?? [];
    const failed = outcomes.filter(Boolean).length;
    return {
      key,
      state: this.state(key),
      consecutiveFailures: state?.consecutiveFailures ?? 0,
      latencyMs: state?.latencyMs ?? null,
      errorRate: outcomes.length === 0 ? null : failed / outcomes.length,
      calls: outcomes.length,
    };
  }

  private ensure(key: string): EndpointState {
    let state = this.states.get(key);
    if (!state) {
      state = { consecutiveFailures: 0, openedAt: null, probing: false, latencyMs: null, tokensPerSecond: null, outcomes: [] };
      this.states.set(key, state);
    }
    return state;
  }
}

function pushOutcome(state: EndpointState, failed: boolean): void {
  state.outcomes.push(failed);
  if (state.outcomes.length > outcomeWindow) state.outcomes.shift();
}
