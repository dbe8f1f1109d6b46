import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { childEnvironment, findFreePort, spawnChild, waitForHttp, type ManagedChild } from './child-process.js';

export type TargetName = 'direct' | 'minimal' | 'switchyard' | 'switchyard-traced' | 'switchyard-cache' | 'portkey' | PassThroughTargetName | ScaleOutTargetName;

/**
 * Switchyard on SQLite like `switchyard`, to set the native pass-through beside translation:
 * Chat Completions → openai translated (SWITCHYARD_PASS_THROUGH=0), and Messages → anthropic
 * relayed and translated.
 */
export type PassThroughTargetName = 'switchyard-translated' | 'switchyard-messages' | 'switchyard-messages-translated';

/** Switchyard on PostgreSQL + Redis: 1 or 3 instances, one hot account or one account per connection. */
export type ScaleOutTargetName = 'switchyard-pg' | 'switchyard-pg-many' | 'switchyard-pg3' | 'switchyard-pg3-many' | 'switchyard-pg3-leases';

/** Where the load generator sends its chat completions for one target. */
export interface RunningTarget {
  name: TargetName;
  origin: string;
  path: string;
  headers: Record<string, string>;
  model: string;
  /** The proxy process whose CPU and memory are measured; null for direct. */
  pid: number | null;
  /** Several instances: requests go round robin over these origins, CPU is summed over `pids`. */
  origins?: string[];
  pids?: number[];
  /** Several accounts: connection i sends `headerSets[i % length]`. */
  headerSets?: Array<Record<string, string>>;
  /** The API style of the requests (default chat: Chat Completions). */
  style?: 'chat' | 'messages';
  /** Where and with which model the embeddings mode sends its batches; absent: the target has no embeddings phase. */
  embeddings?: { path: string; model: string };
  stop(): Promise<void>;
}

export interface SimulatorSettings {
  latencyMs: number;
  tokensPerSecond: number;
  replyTokens: number;
  /** How long the simulator keeps an idle connection (default Node's 5 s). */
  keepAliveMs?: number;
}

export interface RunningSimulator {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const execFileAsync = promisify(execFile);
/** bin/switchyard.js compiles src/ first when dist/ is stale; allow for that on a fresh clone. */
const FIRST_START_TIMEOUT_MS = 120_000;
const START_TIMEOUT_MS = 30_000;
const SIMULATOR_MODEL = 'gpt-sim';
const ANTHROPIC_SIMULATOR_MODEL = 'claude-sim';
const OPENAI_PATH = '/openai/v1/chat/completions';
/** The simulator's OpenAI embeddings model (1,536 dimensions). */
const EMBEDDING_MODEL = 'text-embedding-3-small';

/** `launcher`: a command that runs node, e.g. valgrind (`bench/investigations/count-instructions.ts`). */
function nodeChild(root: string, name: string, args: string[], env: Record<string, string>, logFile?: string, launcher: string[] = []): ManagedChild {
  const [command, ...rest] = [...launcher, process.execPath, ...args];
  return spawnChild(name, command, rest, { cwd: root, env: childEnvironment(env), logFile });
}

export async function startSimulatorProcess(root: string, settings: SimulatorSettings): Promise<RunningSimulator> {
  const port = await findFreePort();
  const child = nodeChild(root, 'simulator', [
    join(root, 'bin', 'switchyard.js'), 'simulate', '--host', '127.0.0.1', '--port', String(port),
    '--latency', String(settings.latencyMs), '--tps', String(settings.tokensPerSecond), '--reply-tokens', String(settings.replyTokens),
    ...(settings.keepAliveMs === undefined ? [] : ['--keep-alive', String(settings.keepAliveMs)]),
  ], {});
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/_sim/stats`, child, FIRST_START_TIMEOUT_MS);
  return { url, pid: child.pid, stop: () => child.stop() };
}

export function directTarget(simulator: RunningSimulator): RunningTarget {
  return {
    name: 'direct',
    origin: simulator.url,
    path: OPENAI_PATH,
    headers: { 'content-type': 'application/json', authorization: 'Bearer sim-key' },
    model: SIMULATOR_MODEL,
    embeddings: { path: '/openai/v1/embeddings', model: EMBEDDING_MODEL },
    pid: null,
    stop: async () => {},
  };
}

/** A proxy command of `bench/` (`script`) in front of the simulator, with its process for its output. */
async function startProxyScript(root: string, simulator: RunningSimulator, name: string, script: string, args: string[]): Promise<{ target: RunningTarget; child: ManagedChild }> {
  const port = await findFreePort();
  const child = spawnChild(name, process.execPath, [
    '--import', 'tsx', join(root, 'bench', script), '--upstream', simulator.url, '--host', '127.0.0.1', '--port', String(port), ...args,
  ], { cwd: root, env: childEnvironment({}), ipc: true });
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttp(`${origin}/_sim/stats`, child, START_TIMEOUT_MS);
  return { target: { ...directTarget(simulator), origin, pid: child.pid, stop: () => child.stop() }, child };
}

/** `connections`: the proxy's upstream pool size (default 256; the 2,000-stream memory run needs more). */
export async function startMinimalProxyTarget(root: string, simulator: RunningSimulator, connections = 256): Promise<RunningTarget> {
  const { target } = await startProxyScript(root, simulator, 'minimal proxy', 'minimal-proxy.ts', ['--connections', String(connections)]);
  return { ...target, name: 'minimal' };
}

/** `bench/investigations/lower-bound-proxy.ts` (`investigations/measure-lower-bound.ts`): the floor on Fastify and/or with books in `books` (a SQLite file). */
export function startLowerBoundTarget(root: string, simulator: RunningSimulator, options: { fastify: boolean; books?: string }): Promise<{ target: RunningTarget; child: ManagedChild }> {
  return startProxyScript(root, simulator, 'lower-bound proxy', 'investigations/lower-bound-proxy.ts', [...(options.fastify ? ['--fastify'] : []), ...(options.books ? ['--books', options.books] : [])]);
}

export interface SwitchyardOptions {
  /** A scratch directory for the SQLite database, the config and the log. */
  directory: string;
  logLevel: string;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeFlags?: string[];
  /** Extra environment for `serve` (timeouts, caps). */
  env?: Record<string, string>;
  /** The target's name in results (default `switchyard`). */
  name?: TargetName;
  /** Messages to an anthropic-wire model instead of Chat Completions to an openai-wire one. */
  style?: 'chat' | 'messages';
  /** A command prefix that runs node (valgrind …), for `bench/investigations/count-instructions.ts`. */
  launcher?: string[];
  /** How long to wait for /health (default 120 s). */
  startTimeoutMs?: number;
  /**
   * The response cache on (database backend, price_factor 0) and every request asking for it
   * (`x-switchyard-cache: on`): the load generator sends one body, so after the first request
   * every one is a hit — the CPU of answering from the cache.
   */
  cache?: boolean;
}

/** One OpenAI-protocol provider at the simulator and one model on it, with prices. */
export function switchyardConfigYaml(simulatorUrl: string): string {
  return `limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: bench-sim, name: Bench simulator, api: openai, base_url: "${simulatorUrl}/openai/v1", api_key: bench-key}
  - {id: bench-sim-anthropic, name: Bench simulator (Anthropic wire), api: anthropic, base_url: "${simulatorUrl}/anthropic", api_key: bench-key}
models:
  - id: bench/${SIMULATOR_MODEL}
    name: "Bench: ${SIMULATOR_MODEL}"
    context_length: 32000
    modalities: {input: [text], output: [text]}
    endpoints:
      - provider: bench-sim
        model: ${SIMULATOR_MODEL}
        pricing: {prompt: 0.1, completion: 0.2}
        supported_parameters: [max_tokens, temperature, top_p, stop]
        max_completion_tokens: 4096
  - id: bench/${ANTHROPIC_SIMULATOR_MODEL}
    name: "Bench: ${ANTHROPIC_SIMULATOR_MODEL}"
    context_length: 32000
    modalities: {input: [text], output: [text]}
    endpoints:
      - provider: bench-sim-anthropic
        model: ${ANTHROPIC_SIMULATOR_MODEL}
        pricing: {prompt: 0.1, completion: 0.2}
        supported_parameters: [max_tokens, temperature, top_p, stop]
        max_completion_tokens: 4096
  - id: bench/embed-sim
    name: "Bench: ${EMBEDDING_MODEL}"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1536, output_dimensions: any}
    endpoints:
      - {provider: bench-sim, model: ${EMBEDDING_MODEL}, pricing: {prompt: 0.02}}
`;
}

/**
 * The gateway as an operator runs it: `switchyard serve` on SQLite with a YAML config, and an
 * account made with the admin CLI.
 */
export async function startSwitchyardTarget(root: string, simulator: RunningSimulator, options: SwitchyardOptions): Promise<RunningTarget> {
  const configPath = join(options.directory, 'switchyard.yaml');
  await writeFile(configPath, switchyardConfigYaml(simulator.url) + (options.cache ? 'cache: {enabled: true, default_ttl_s: 86400, max_ttl_s: 86400, price_factor: 0}\n' : ''));
  const env = {
    DATABASE_URL: `sqlite:${join(options.directory, 'switchyard.db')}`,
    SWITCHYARD_CONFIG: configPath,
  };
  const created = await execFileAsync(process.execPath, [join(root, 'bin', 'switchyard.js'), 'admin', 'create-account', '--name', 'bench', '--credits', '1000000'], {
    cwd: root,
    env: childEnvironment(env),
    timeout: FIRST_START_TIMEOUT_MS,
  });
  const key = (JSON.parse(created.stdout) as { key?: string }).key;
  if (!key) throw new Error(`admin create-account printed no key: ${created.stdout}`);
  const port = await findFreePort();
  const child = nodeChild(root, 'switchyard', [...(options.nodeFlags ?? []), join(root, 'bin', 'switchyard.js'), 'serve'], {
    ...env,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: options.logLevel,
    // No load balancer follows /ready here: without a drain the process exits within stop()'s
    // grace, so a --cpu-prof profile gets written (with the default 5 s drain it was SIGKILLed first).
    SWITCHYARD_SHUTDOWN_DRAIN_MS: '0',
    SWITCHYARD_SHUTDOWN_GRACE_MS: '2000',
    ...options.env,
  }, join(options.directory, 'switchyard.log'), options.launcher);
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttp(`${origin}/health`, child, options.startTimeoutMs ?? FIRST_START_TIMEOUT_MS);
  const messages = options.style === 'messages';
  return {
    name: options.name ?? 'switchyard',
    origin,
    path: messages ? '/v1/messages' : '/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...(options.cache && { 'x-switchyard-cache': 'on' }) },
    model: `bench/${messages ? ANTHROPIC_SIMULATOR_MODEL : SIMULATOR_MODEL}`,
    style: options.style ?? 'chat',
    embeddings: messages ? undefined : { path: '/v1/embeddings', model: 'bench/embed-sim' },
    pid: child.pid,
    stop: () => child.stop(5000),
  };
}

/** Portkey's Node build, or why it cannot run here. */
export function portkeyEntry(root: string): { entry: string } | { reason: string } {
  const entry = join(root, 'test', 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
  if (!existsSync(entry)) return { reason: '@portkey-ai/gateway is not installed (npm run test:setup)' };
  return { entry };
}

/**
 * Portkey's open-source gateway (`@portkey-ai/gateway`, Hono on @hono/node-server) with the
 * simulator as a custom OpenAI host. Its server listens on every interface; the preload keeps it
 * on loopback.
 */
export async function startPortkeyTarget(root: string, simulator: RunningSimulator, directory: string): Promise<RunningTarget> {
  const found = portkeyEntry(root);
  if ('reason' in found) throw new Error(found.reason);
  const port = await findFreePort();
  const child = nodeChild(root, 'portkey', ['--import', join(root, 'bench', 'force-loopback.mjs'), found.entry, `--port=${port}`, '--headless'], {
    PORT: String(port),
  }, join(directory, 'portkey.log'));
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttp(`${origin}/`, child, START_TIMEOUT_MS);
  return {
    name: 'portkey',
    origin,
    path: '/v1/chat/completions',
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer sim-key',
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': `${simulator.url}/openai/v1`,
    },
    model: SIMULATOR_MODEL,
    pid: child.pid,
    stop: () => child.stop(),
  };
}
