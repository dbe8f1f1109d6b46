import { startSimulator } from './start-simulator.js';
import type { Simulator, SimulatorOptions } from './simulator-types.js';

/** Options of `switchyard simulate`, as a CLI parser hands them over (strings or numbers). */
export interface SimulateCommandOptions {
  port?: string | number;
  host?: string;
  /** Milliseconds before the response headers. */
  latency?: string | number;
  /** Stream pacing in tokens per second; 0 = as fast as possible. */
  tps?: string | number;
  chunkTokens?: string | number;
  replyTokens?: string | number;
  apiKey?: string;
  /** Milliseconds an idle keep-alive connection stays open. */
  keepAlive?: string | number;
}

/**
 * Starts the simulator for the CLI and prints where it listens. The caller owns the returned
 * simulator (and closes it on SIGINT/SIGTERM).
 */
export async function runSimulatorFromCli(
  options: SimulateCommandOptions,
  print: (line: string) => void = console.log,
): Promise<Simulator> {
  const simulatorOptions: SimulatorOptions = {
    port: readInteger('--port', options.port),
    host: options.host,
    latencyMs: readNumber('--latency', options.latency),
    tokensPerSecond: readNumber('--tps', options.tps),
    chunkTokens: readInteger('--chunk-tokens', options.chunkTokens),
    replyTokens: readInteger('--reply-tokens', options.replyTokens),
    apiKey: options.apiKey,
    keepAliveMs: readInteger('--keep-alive', options.keepAlive),
  };
  const simulator = await startSimulator(simulatorOptions);
  print(`simulator listening on ${simulator.url}`);
  print(`  openai     base URL  ${simulator.baseUrls.openai}`);
  print(`  anthropic  base URL  ${simulator.baseUrls.anthropic}`);
  print(`  gemini     base URL  ${simulator.baseUrls.gemini}`);
  print(`  bedrock    base URL  ${simulator.baseUrls.bedrock}`);
  return simulator;
}

function readNumber(flag: string, value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = typeof value === 'number' ? value : Number(value.trim() === '' ? Number.NaN : value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new RangeError(`${flag} must be a non-negative number, got ${JSON.stringify(value)}`);
  return parsed;
}

function readInteger(flag: string, value: string | number | undefined): number | undefined {
  const parsed = readNumber(flag, value);
  if (parsed !== undefined && !Number.isInteger(parsed)) {
    throw new RangeError(`${flag} must be a whole number, got ${JSON.stringify(value)}`);
  }
  return parsed;
}
