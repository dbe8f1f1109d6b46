import { buildApp } from '../app.js';
import { loadConfig } from '../config/load-config.js';
import { closeContext, createContext } from '../create-context.js';

/**
 * `switchyard serve`: load config, open and migrate the store, listen, and on SIGTERM/SIGINT
 * stop accepting, let in-flight requests and streams finish (bounded by the grace period),
 * close the store and exit 0.
 */
export async function serve(): Promise<void> {
  const config = loadConfig();
  const context = await createContext(config);
  const app = await buildApp(context);
  const { host, port } = config.server;
  const address = await app.listen({ host, port });
  context.logger.info({ address, catalog: config.source, models: config.models.length }, 'ready');
  process.stdout.write(`listening on ${address.replace('[::1]', 'localhost')}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    context.logger.info({ signal }, 'shutting down');
    const deadline = setTimeout(() => {
      context.logger.warn('grace period over; closing remaining connections');
      app.server.closeAllConnections();
    }, config.server.shutdownGraceMs);
    deadline.unref();
    try {
      await app.close();
      await closeContext(context);
    } finally {
      clearTimeout(deadline);
    }
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
