import pino, { type Logger } from 'pino';
import { createResponseCache } from './cache/response-cache.js';
import type { AppContext } from './app-context.js';
import { KeyCache } from './auth/key-cache.js';
import { Ledger, type LedgerOptions } from './billing/ledger.js';
import { LeaseSignals } from './billing/lease-signals.js';
import { readLeaseConfig } from './config/read-lease-config.js';
import { RequestLog } from './billing/request-log.js';
import { buildCatalog } from './catalog/catalog.js';
import type { Config } from './config/types.js';
import { systemClock, type Clock } from './core/clock.js';
import { createId } from './core/ids.js';
import { ProviderRegistry } from './providers/registry.js';
import { DefaultProviderCache } from './routing/default-provider-cache.js';
import { PromptCacheAffinity } from './routing/prompt-cache-affinity.js';
import { EndpointHealth } from './routing/endpoint-health.js';
import { createMetrics } from './metrics/create-metrics.js';
import { ServerLifecycle } from './lifecycle/server-lifecycle.js';
import { createCounters } from './store/counters.js';
import { TaskEngine, type TaskEngineOptions } from './tasks/task-engine.js';
import { videoTaskHandler } from './videos/video-task-handler.js';
import { createStore, migrateToLatest, type StoreOptions } from './store/create-store.js';
import { UsageSummariesBackfill } from './billing/backfill-usage-summaries.js';
import { imageTaskHandler } from './media/image-task-handler.js';
import { createTracingFromEnv, type Tracing } from './telemetry/create-tracing.js';
import { AutoTopUpSweep } from './payments/auto-top-up-sweep.js';
import { RequestLogMaintenance, type RequestLogMaintenanceOptions } from './billing/request-log-maintenance.js';
import { readRequestLogRetentionDays } from './config/read-request-log-retention.js';
import { createPaymentProvider } from './payments/create-payment-provider.js';
import { AlertSweep } from './alerts/alert-sweep.js';
import { alertTaskHandler } from './alerts/alert-task-handler.js';
import { createBatchTaskHandler } from './batches/batch-task-handler.js';
import { batchLineCodec } from './api/batches/line-codec.js';
import { runBatchLine } from './api/batches/run-batch-line.js';
import { closeFileStorage } from './batches/manage-files.js';

export interface ContextOptions {
  logger?: Logger;
  clock?: Clock;
  store?: StoreOptions;
  /** How long another instance's silence means it died (its reservations are released). */
  instanceTimeoutMs?: number;
  /** How long a response waits for its charge to commit while the database does not answer (see `LedgerOptions`). */
  settleWaitMs?: number;
  /**
   * Per-instance leases on accounts' funds (docs/leases.md): false turns them off; absent, they
   * follow `SWITCHYARD_LEASES` (on by default; PostgreSQL only).
   */
  leases?: false | NonNullable<LedgerOptions['leases']>;
  /** Task engine settings (lease, batch, idle pause, jitter); tests shorten them. */
  tasks?: Partial<Omit<TaskEngineOptions, 'instanceId'>>;
  /** Request log partitions and retention; default: retention from `SWITCHYARD_REQUEST_LOG_RETENTION_DAYS`. */
  requestLog?: RequestLogMaintenanceOptions;
  /** Tracing (tests pass an in-memory exporter's); default: from the OTEL_* environment, off without an endpoint. */
  tracing?: Tracing | null;
}

/** Each context's tracing, flushed and shut down with it. */
const tracingOf = new WeakMap<AppContext, Tracing>();
/** Each context's usage summaries backfill (migration 2026-12-07-1300), stopped before its store closes. */
const backfillOf = new WeakMap<AppContext, UsageSummariesBackfill>();
/** Each context's request log maintenance (partitions ahead, retention behind), stopped before its store closes. */
const requestLogMaintenanceOf = new WeakMap<AppContext, RequestLogMaintenance>();
/** Each context's auto top-up sweep (payments configured only), stopped before its store closes. */
const autoTopUpOf = new WeakMap<AppContext, AutoTopUpSweep>();
/** Each context's alert sweep (crossings of low balance and key limits), stopped before its store closes. */
const alertSweepOf = new WeakMap<AppContext, AlertSweep>();

/** Opens the store (migrating it) and assembles the app context from a loaded config. */
export async function createContext(config: Config, options: ContextOptions = {}): Promise<AppContext> {
  const logger = options.logger ?? createLogger(config.server.logLevel);
  const store = await createStore(config.server.databaseUrl, { logger, backgroundCheckpoints: true, ...options.store });
  const indexes = await migrateToLatest(store);
  for (const skipped of indexes.skipped) logger.warn(skipped, 'index left out; the queries it serves scan instead');
  const clock = options.clock ?? systemClock;
  const instanceId = createId('ins');
  const tracing = options.tracing === undefined ? createTracingFromEnv(process.env) : options.tracing;
  // The ledger's paid calls under way let a batch wait a turn for the settlements about to follow.
  const requestLog = new RequestLog({ store, logger, now: () => clock.now(), createId, callsUnderWay: () => context.ledger.callsUnderWay() });
  const leases = options.leases === false ? undefined : (options.leases ?? readLeaseConfig());
  // Several instances share only PostgreSQL: there, key changes and requests that did not fit
  // reach the other instances' leases through its notifications (docs/leases.md).
  const signals = leases && store.pool ? new LeaseSignals(store.pool, { instanceId, logger, boundMs: leases.recallBoundMs ?? 5_000, reclaimWaitMs: leases.reclaimWaitMs ?? 1_000 }) : undefined;
  const context: AppContext = {
    config,
    catalog: buildCatalog(config),
    store,
    logger,
    clock,
    createId,
    // Short enough that a revocation on another instance takes effect within seconds.
    keyCache: new KeyCache(10_000, 100_000),
    defaultProviders: new DefaultProviderCache(store.db, 10_000),
    ledger: new Ledger(
      { store, clock, createId },
      {
        instanceId,
        instanceTimeoutMs: options.instanceTimeoutMs ?? 15_000,
        books: requestLog,
        settleWaitMs: options.settleWaitMs,
        leases,
        signals,
        onFenced: () => logger.warn({ instanceId }, 'this instance was declared dead by another (paused or cut off past the instance timeout); registered again'),
      },
    ),
    providers: new ProviderRegistry(logger),
    requestLog,
    health: new EndpointHealth({ failureThreshold: 5, coolDownMs: 30_000 }),
    promptCacheAffinity: new PromptCacheAffinity({ capacity: 10_000, ttlMs: 5 * 60_000, clock }),
    counters: createCounters(config.server.redisUrl, { logger }),
    // One identity per process: the lease owner of its tasks is the holder of its reservations.
    tasks: new TaskEngine(() => context, { schedules: config.tasks, ...options.tasks, instanceId }),
    metrics: createMetrics(() => context),
    lifecycle: new ServerLifecycle(),
    tracer: tracing?.tracer ?? null,
    responseCache: createResponseCache(config.cache, config.server.redisUrl ?? undefined, { store, clock, logger }),
  };
  context.responseCache?.start();
  if (tracing) tracingOf.set(context, tracing);
  const backfill = new UsageSummariesBackfill(store, { logger });
  backfillOf.set(context, backfill);
  void backfill.start();
  const maintenance = new RequestLogMaintenance({ store, clock, logger }, { retentionDays: readRequestLogRetentionDays(), ...options.requestLog });
  requestLogMaintenanceOf.set(context, maintenance);
  maintenance.start();
  const paymentProvider = createPaymentProvider(config);
  if (paymentProvider && config.payments?.stripe) {
    const sweep = new AutoTopUpSweep(context, paymentProvider, config.payments.stripe);
    autoTopUpOf.set(context, sweep);
    sweep.start();
  }
  context.tasks.registerHandler(videoTaskHandler);
  context.tasks.registerHandler(imageTaskHandler);
  context.tasks.registerHandler(alertTaskHandler);
  // A batch's lines run through the live text path, which lives in the API layer: handed in here.
  context.tasks.registerHandler(createBatchTaskHandler({ run: runBatchLine, codec: batchLineCodec }));
  const alertSweep = new AlertSweep(context, config.alerts ?? { allowPrivateUrls: false, checkMs: 5_000 });
  alertSweepOf.set(context, alertSweep);
  alertSweep.start();
  await context.ledger.startInstance();
  await signals?.start({
    keyChanged: (keyId) => {
      context.keyCache.deleteKey(keyId);
      return context.ledger.recallKey(keyId);
    },
    giveBackSpare: (accountId) => context.ledger.giveBackSpare(accountId),
    recallAll: () => context.ledger.recallLeases(),
  });
  // Start with Redis connected when it is up; when it is down, limit checks answer 503 until it is back.
  await context.counters.settle(2000);
  return context;
}

/** Log lines are written in chunks of at least this many bytes (or every `LOG_FLUSH_MS`). */
const LOG_BUFFER_BYTES = 4096;
const LOG_FLUSH_MS = 250;

export function createLogger(level: string): Logger {
  // One info line per request: written one by one, the write syscalls were ~6 % of a request's
  // CPU. Buffered, a few requests share one write; a timer bounds how long a line waits, and pino
  // flushes synchronously when the process exits (a kill -9 can lose the last 250 ms of lines).
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES });
  setInterval(() => destination.flush(), LOG_FLUSH_MS).unref();
  return pino(
    {
      level,
      // Belt and braces: nothing that could hold a key is ever serialised.
      redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'headers.authorization', 'headers["x-api-key"]', 'req.headers["x-goog-api-key"]', 'headers["x-goog-api-key"]', 'headers["x-amz-security-token"]', 'key', 'apiKey', 'auth'], censor: '[redacted]' },
    },
    destination,
  );
}

/** The context's request log maintenance (tests run it under their clock). */
export function requestLogMaintenance(context: AppContext): RequestLogMaintenance | undefined {
  return requestLogMaintenanceOf.get(context);
}

/** The context's alert sweep: tests run a round with `runOnce()` instead of waiting for its timer. */
export function alertSweepOfContext(context: AppContext): AlertSweep | undefined {
  return alertSweepOf.get(context);
}

export async function closeContext(context: AppContext): Promise<void> {
  await context.tasks.stop();
  await autoTopUpOf.get(context)?.stop();
  await alertSweepOf.get(context)?.stop();
  await backfillOf.get(context)?.stop();
  await requestLogMaintenanceOf.get(context)?.stop();
  await context.responseCache?.close();
  await context.requestLog.close();
  // Every settlement is committed: the leases' rows hold nothing in flight and go back whole.
  await context.ledger.stopInstance().catch(() => undefined);
  await context.providers.close();
  await closeFileStorage(context);
  await context.counters.close();
  await context.store.close();
  await tracingOf.get(context)?.shutdown();
}
