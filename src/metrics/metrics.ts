import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestRecord } from '../billing/request-record.js';
import { sharedEventLoopMonitor, type EventLoopSample } from './monitor-event-loop.js';

/** What the collect-time gauges read when Prometheus scrapes; all of it is this instance's view. */
export interface MetricsSources {
  /** Circuit state of every catalog endpoint (`closed` | `open` | `half-open`). */
  breakers(): Array<{ provider: string; providerModel: string; state: string }>;
  /** Reservation rows open in the database (all instances): requests' own, and fund leases. */
  openReservations(): Promise<{ requests: number; leases: number }>;
  /** Rows waiting in this instance's request-log writer. */
  requestLogQueue(): number;
  /** Tasks in the database by state (all instances). */
  tasksByState(): Promise<Array<{ status: string; count: number }>>;
  /** nano-USD recorded as uncollected in the ledger (all instances). */
  uncollectedNano(): Promise<bigint>;
  /** This instance's calls open and waiting per provider (`providers/shared/provider-slots.ts`). */
  upstreamConnections(): Array<{ provider: string; inUse: number; queued: number }>;
}

const nanoPerUsd = 1_000_000_000n;

/** nano-USD → USD for a Prometheus sample: whole dollars and the fraction added separately, so no precision is lost below 2^53 nano. */
export function nanoToUsdSample(nano: bigint): number {
  return Number(nano / nanoPerUsd) + Number(nano % nanoPerUsd) / 1e9;
}

/**
 * The gateway's Prometheus metrics, on a registry of its own (tests build many apps in one
 * process). Counters are incremented where things happen; gauges of shared state are read at
 * scrape time so that nothing on the request path pays for them.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly httpRequests: Counter<'route' | 'method' | 'status'>;
  private readonly httpDuration: Histogram<'route' | 'method'>;
  private readonly generations: Counter<'endpoint' | 'model' | 'provider' | 'status'>;
  private readonly timeToFirstToken: Histogram<'model' | 'provider'>;
  private readonly upstreamErrors: Counter<'provider' | 'code'>;
  private readonly retries: Counter<'provider'>;
  private readonly charged: Counter<'provider'>;
  private readonly rateLimited: Counter<'limit_type'>;
  /** Exact running total of charges per provider. */
  private readonly chargedNano = new Map<string, bigint>();

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    this.httpRequests = new Counter({ name: 'switchyard_http_requests_total', help: 'HTTP requests by route pattern, method and status', labelNames: ['route', 'method', 'status'], registers });
    this.httpDuration = new Histogram({
      name: 'switchyard_http_request_duration_seconds',
      help: 'Time from request to the end of the response (whole stream included)',
      labelNames: ['route', 'method'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    });
    this.generations = new Counter({ name: 'switchyard_generation_requests_total', help: 'Generation requests by endpoint, model, serving provider and final status (as in the request log)', labelNames: ['endpoint', 'model', 'provider', 'status'], registers });
    this.timeToFirstToken = new Histogram({
      name: 'switchyard_time_to_first_token_seconds',
      help: 'Streams: time from the request to the first part from the provider',
      labelNames: ['model', 'provider'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32],
      registers,
    });
    this.upstreamErrors = new Counter({ name: 'switchyard_upstream_errors_total', help: 'Failed provider calls by provider and error code', labelNames: ['provider', 'code'], registers });
    this.retries = new Counter({ name: 'switchyard_upstream_retries_total', help: 'Failed provider calls after which another candidate was tried, by the provider that failed', labelNames: ['provider'], registers });
    const chargedNano = this.chargedNano;
    // Exported from the exact nano-USD totals at scrape time, so the float never accumulates rounding.
    this.charged = new Counter({
      name: 'switchyard_charged_usd_total',
      help: 'USD charged to accounts for requests this instance served, by provider',
      labelNames: ['provider'],
      registers,
      collect() {
        this.reset();
        for (const [provider, nano] of chargedNano) this.inc({ provider }, nanoToUsdSample(nano));
      },
    });
    this.rateLimited = new Counter({ name: 'switchyard_rate_limited_total', help: 'Requests refused with 429 rate_limited, by limit type', labelNames: ['limit_type'], registers });

    new Gauge({
      name: 'switchyard_circuit_state',
      help: 'Circuit breaker per endpoint as this instance sees it: 0 closed, 1 half-open, 2 open',
      labelNames: ['provider', 'provider_model'],
      registers,
      collect() {
        this.reset();
        for (const breaker of sources.breakers()) this.set({ provider: breaker.provider, provider_model: breaker.providerModel }, breaker.state === 'open' ? 2 : breaker.state === 'half-open' ? 1 : 0);
      },
    });
    // One read per scrape serves both gauges: the first collects it, the second takes it.
    let leaseRows: Promise<{ requests: number; leases: number }> | undefined;
    new Gauge({
      name: 'switchyard_open_reservations',
      help: 'Requests\' reservations open in the database (fund leases not included)',
      registers,
      async collect() {
        leaseRows = sources.openReservations();
        this.set((await leaseRows).requests);
      },
    });
    new Gauge({
      name: 'switchyard_fund_leases',
      help: 'Fund lease rows the running instances hold (docs/leases.md)',
      registers,
      async collect() {
        const counts = leaseRows ?? sources.openReservations();
        leaseRows = undefined;
        this.set((await counts).leases);
      },
    });
    new Gauge({ name: 'switchyard_request_log_queue_depth', help: 'Request-log rows waiting to be written by this instance', registers, collect() { this.set(sources.requestLogQueue()); } });
    new Gauge({
      name: 'switchyard_tasks',
      help: 'Durable tasks (videos, queued media jobs) by state',
      labelNames: ['status'],
      registers,
      async collect() {
        this.reset();
        for (const row of await sources.tasksByState()) this.set({ status: row.status }, row.count);
      },
    });
    new Gauge({
      name: 'switchyard_upstream_connections',
      help: "Calls this instance has open to each provider (in_use) and waiting for one of the provider's connections (queued)",
      labelNames: ['provider', 'state'],
      registers,
      collect() {
        this.reset();
        for (const { provider, inUse, queued } of sources.upstreamConnections()) {
          this.set({ provider, state: 'in_use' }, inUse);
          this.set({ provider, state: 'queued' }, queued);
        }
      },
    });
    // Both gauges come from one sample per scrape; whichever collects first takes it.
    const loop = sharedEventLoopMonitor();
    let sample: EventLoopSample | undefined;
    new Gauge({
      name: 'switchyard_event_loop_delay_max_seconds',
      help: 'Longest event-loop delay since the previous scrape (what every request in flight waited, machine load included)',
      registers,
      collect() {
        sample = loop.takeSample();
        this.set(sample.maxDelaySeconds);
      },
    });
    new Gauge({
      name: 'switchyard_event_loop_busy_max_seconds',
      help: 'Most CPU time the process spent between two event-loop turns since the previous scrape (synchronous work of ours)',
      registers,
      collect() {
        this.set((sample ?? loop.takeSample()).maxBusySeconds);
        sample = undefined;
      },
    });
    new Gauge({ name: 'switchyard_uncollected_usd', help: 'USD of actual cost that account funds could not cover (ledger total)', registers, async collect() { this.set(nanoToUsdSample(await sources.uncollectedNano())); } });
  }

  /** One finished HTTP request; `route` is the matched pattern (never the raw URL). */
  observeHttp(route: string, method: string, status: number, seconds: number): void {
    this.httpRequests.inc({ route, method, status: String(status) });
    this.httpDuration.observe({ route, method }, seconds);
  }

  /** One generation request's final row, exactly as the request log gets it. */
  observeRequestRecord(record: RequestRecord): void {
    const provider = record.provider ?? 'none';
    this.generations.inc({ endpoint: record.endpoint, model: record.model, provider, status: record.status });
    if (record.cost > 0n) {
      this.chargedNano.set(provider, (this.chargedNano.get(provider) ?? 0n) + record.cost);
    }
  }

  observeTimeToFirstToken(model: string, provider: string, seconds: number): void {
    this.timeToFirstToken.observe({ model, provider }, seconds);
  }

  /** A provider call failed; `retried` when another candidate is tried next. */
  observeUpstreamFailure(provider: string, code: string, retried: boolean): void {
    this.upstreamErrors.inc({ provider, code });
    if (retried) this.retries.inc({ provider });
  }

  observeRateLimited(limitType: string): void {
    this.rateLimited.inc({ limit_type: limitType });
  }

  /** The exposition text and its content type, for `GET /metrics`. */
  async expose(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
