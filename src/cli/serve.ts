import { buildApp } from '../app.js';
import { closeTokenizer, onTokenCountFailure, prepareTokenizer } from '../billing/count-tokens.js';
import { loadConfig } from '../config/load-config.js';
import { closeContext, createContext } from '../create-context.js';
import { defaultHttpLimits } from '../config/http-limits.js';
import { interruptTimes, onInterrupt } from './handle-interrupt.js';
import { warmUp } from './warm-up.js';
import { logProviderSummary, offlineHint } from './log-provider-summary.js';
import { shutDownGracefully } from './shut-down-gracefully.js';

/**
 * `switchyard serve`: load config, open and migrate the store, listen, and on SIGTERM drain
 * (`/ready` 503 first), stop accepting, let in-flight requests and streams finish (bounded by the
 * grace period), close the store and exit 0 (`shut-down-gracefully.ts`). SIGINT (Ctrl-C) is the
 * interactive stop (`handle-interrupt.ts`): no drain, the rest the same.
 */
export async function serve(): Promise<void> {
  const config = loadConfig();
  const instanceTimeoutMs = Number(process.env.SWITCHYARD_INSTANCE_TIMEOUT_MS) || 15_000;
  const settleWaitMs = Number(process.env.SWITCHYARD_SETTLE_WAIT_MS) || undefined;
  // Built before the instance announces itself (in createContext): its 0.7–1.5 s of synchronous
  // work (more on a loaded machine) would otherwise hold the first heartbeat back, and with a short
  // instance timeout another instance's sweep would take this one for dead while it starts.
  // Built before listening too: lazily, it would stall every request then in flight.
  await prepareTokenizer();
  const context = await createContext(config, { instanceTimeoutMs, settleWaitMs });
  onTokenCountFailure((error) => context.logger.warn({ err: error }, 'token count failed; the text was counted at four bytes a token'));
  // Reservations left by a crashed instance (ours before a restart, or another's) are released
  // here and by the periodic sweep, so no money stays held by requests that no longer exist.
  const released = await context.ledger.sweep();
  if (released > 0) context.logger.warn({ released }, 'released reservations of stopped instances');
  const upkeep = setInterval(() => {
    void context.ledger
      .heartbeat()
      .then(() => context.ledger.sweep())
      .then(() => context.ledger.returnIdleLeases())
      .catch((error: unknown) => context.logger.error({ err: error }, 'ledger upkeep failed'));
  }, Math.max(500, Math.floor(instanceTimeoutMs / 3)));
  upkeep.unref();
  const app = await buildApp(context);
  if (config.server.warmUpRequests > 0) {
    // Then the rest of the request path (see warm-up.ts), and the database connections: the
    // first seconds of traffic would otherwise run unoptimised code at about half the warm rate
    // while the pool opens its connections (each a new PostgreSQL backend) all at once.
    await warmUp(config.server.warmUpRequests, context.logger);
    await context.store.openConnections().catch((error: unknown) => context.logger.warn({ err: error }, 'could not open the database connections ahead; they open on first use'));
  }
  const { host, port } = config.server;
  const address = await app.listen({ host, port });
  context.logger.info({ address, catalog: config.source, models: config.models.length }, 'ready');
  logProviderSummary(context.logger, config);
  process.stdout.write(`listening on ${address.replace('[::1]', 'localhost')}\n`);
  const hint = offlineHint(config);
  if (hint) process.stdout.write(`${hint}\n`);
  // Polls the durable tasks (videos) of every instance's past, this one's included: after a
  // restart, tasks pick up where they were.
  context.tasks.start();

  let stopping = false;
  const stop = async (signal: 'SIGTERM' | 'SIGINT') => {
    if (stopping) return;
    stopping = true;
    context.logger.info({ signal }, 'shutting down');
    // No new task claims; polls in flight finish (or are handed back) while requests drain.
    const tasksStopped = context.tasks.stop();
    try {
      const times = {
        drainMs: config.server.shutdownDrainMs,
        graceMs: config.server.shutdownGraceMs,
        keepAliveTimeoutMs: config.server.http?.keepAliveTimeoutMs ?? defaultHttpLimits.keepAliveTimeoutMs,
      };
      await shutDownGracefully(app, context, signal === 'SIGINT' ? interruptTimes(times) : times);
      // Requests whose connections were cut (past the grace, or by a second Ctrl-C) settle
      // after the listener has closed: their charges go in before the books close.
      await context.ledger.whenSettled(5_000);
      await tasksStopped;
    } finally {
      // The heartbeat runs until the last request has settled: other instances would otherwise
      // take this one for dead during a long drain and release reservations still in use.
      clearInterval(upkeep);
      await closeContext(context);
      await closeTokenizer();
    }
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', onInterrupt(app, context, () => stop('SIGINT')));
}
