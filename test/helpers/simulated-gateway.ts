import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../../src/config/types.js';
import type { Clock } from '../../src/core/clock.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '@switchyard/simulator';
import type { Tracing } from '../../src/telemetry/create-tracing.js';
import type { ManualClock } from './manual-clock.js';
import { buildTestConfig } from './test-config.js';
import { startTestApp, type TestApp } from './start-test-app.js';

/**
 * A catalog whose three models are each served by the simulator over one wire protocol, plus a
 * model served by all three (for failover), and fallback targets.
 */
export function simulatedCatalogYaml(simulatorUrl: string, options: { timeouts?: string } = {}): string {
  const timeouts = options.timeouts ?? '{connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000}';
  const parameters = '[max_tokens, temperature, top_p, stop, tools, tool_choice]';
  const endpoint = (provider: string, model: string, prompt = 1, completion = 2) =>
    `      - provider: ${provider}\n        model: ${model}\n        pricing: {prompt: ${prompt}, completion: ${completion}}\n        supported_parameters: ${parameters}\n        max_completion_tokens: 1000\n`;
  const model = (id: string, endpoints: string) =>
    `  - id: ${id}\n    name: "Sim: ${id}"\n    context_length: 32000\n    modalities: {input: [text, image], output: [text]}\n    endpoints:\n${endpoints}`;
  return `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: sim-openai, name: Sim OpenAI, api: openai, base_url: "${simulatorUrl}/openai/v1", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-anthropic, name: Sim Anthropic, api: anthropic, base_url: "${simulatorUrl}/anthropic", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-gemini, name: Sim Gemini, api: gemini, base_url: "${simulatorUrl}/gemini/v1beta", api_key: sim-key, timeouts: ${timeouts}}
models:
${model('sim/openai-model', endpoint('sim-openai', 'gpt-sim'))}${model('sim/anthropic-model', endpoint('sim-anthropic', 'claude-sim'))}${model('sim/gemini-model', endpoint('sim-gemini', 'gemini-sim'))}${model(
    'sim/everywhere',
    endpoint('sim-openai', 'gpt-everywhere', 1, 2) + endpoint('sim-anthropic', 'claude-everywhere', 2, 3) + endpoint('sim-gemini', 'gemini-everywhere', 3, 4),
  )}${model('sim/backup', endpoint('sim-anthropic', 'claude-backup', 1, 1))}  - id: sim/free-model:free
    name: "Sim: free"
    free: true
    context_length: 32000
    modalities: {input: [text], output: [text]}
    endpoints:
      - provider: sim-openai
        model: gpt-free
        pricing: {prompt: 0, completion: 0}
        supported_parameters: ${parameters}
`;
}

export interface SimulatedGateway {
  simulator: Simulator;
  test: TestApp;
  /** http://127.0.0.1:PORT (no /v1). */
  url: string;
  key: string;
  accountId: string;
  close(): Promise<void>;
}

/** The real gateway over real HTTP, with the simulator as every provider. */
export async function startSimulatedGateway(
  options: {
    simulator?: SimulatorOptions;
    databaseUrl?: string;
    credits?: number;
    timeouts?: string;
    redisUrl?: string;
    clock?: Clock;
    /** The gateway's logger (default: silent). */
    logger?: Logger;
    configure?: (config: Config) => void;
    /** The catalog for the simulator at this URL; default `simulatedCatalogYaml` (with `timeouts`). */
    catalogYaml?: (simulatorUrl: string) => string;
    /** Tracing of the gateway (default: from the OTEL_* environment, off in tests). */
    tracing?: Tracing | null;
    /** Listen on this port (default: any free one), for a test that must know the page's URL before the start. */
    port?: number;
  } = {},
): Promise<SimulatedGateway> {
  const simulator = await startSimulator(options.simulator);
  const databaseUrl = options.databaseUrl ?? 'sqlite::memory:';
  const yaml = options.catalogYaml ? options.catalogYaml(simulator.url) : simulatedCatalogYaml(simulator.url, { timeouts: options.timeouts });
  const config = buildTestConfig({ databaseUrl, yaml });
  config.server.redisUrl = options.redisUrl ?? null;
  options.configure?.(config);
  const test = await startTestApp({ databaseUrl, config, clock: options.clock, logger: options.logger, tracing: options.tracing });
  await test.app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  const { port } = test.app.server.address() as AddressInfo;
  const account = await test.createAccount({ credits: options.credits ?? 100 });
  return {
    simulator,
    test,
    url: `http://127.0.0.1:${port}`,
    key: account.key,
    accountId: account.accountId,
    async close() {
      await test.close();
      await simulator.close();
    },
  };
}

/** Moves the clock and runs the task engine until the task ends (the simulator's job runs in real time). */
export async function driveTask(
  gateway: Pick<SimulatedGateway, 'test' | 'accountId'> & { clock: ManualClock },
  taskId: string,
  options: { stepMs?: number; timeoutMs?: number } = {},
): Promise<string> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    gateway.clock.advance(options.stepMs ?? 1_000);
    await gateway.test.context.tasks.runOnce();
    const task = await gateway.test.context.tasks.find(gateway.accountId, taskId);
    if (task?.status === 'completed' || task?.status === 'failed') return task.status;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task?.status} after the test's time limit`);
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}

/** Credits, usage and open reservations of an account, in nano-USD, straight from the store. */
export async function readAccountMoney(
  gateway: Pick<SimulatedGateway, 'test' | 'accountId'>,
  accountId = gateway.accountId,
): Promise<{ reserved: bigint; usage: bigint; credits: bigint }> {
  // `reserved` as its requests hold it: less what this instance's lease (PostgreSQL, docs/leases.md)
  // holds spare, as far as its row still holds it (a swept lease row holds nothing).
  const { ledger, store } = gateway.test.context;
  const unused = await ledger.leasedUnused(accountId);
  const leaseRows = await store.db.selectFrom('reservations').select('amount').where('account_id', '=', accountId).where('instance_id', '=', ledger.options.instanceId).where('id', 'like', 'lse%').execute();
  const inRows = leaseRows.reduce((sum, lease) => sum + BigInt(lease.amount), 0n);
  const spare = unused < inRows ? unused : inRows;
  const row = await gateway.test.context.store.db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirstOrThrow();
  return { reserved: BigInt(row.reserved) - spare, usage: BigInt(row.total_usage), credits: BigInt(row.total_credits) };
}

/** A request to the gateway over HTTP: the key (when given) as a bearer token, the body as JSON. */
export function sendJson(
  gateway: Pick<SimulatedGateway, 'url'>,
  key: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
