import type { AddressInfo } from 'node:net';
import type { Clock } from '../../src/core/clock.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator, SimulatorOptions } from '../../src/simulator/simulator-types.js';
import { buildTestConfig } from '../helpers/test-config.js';
import { startTestApp, type TestApp } from '../helpers/start-test-app.js';

/**
 * A catalog with one video model per video protocol of the simulator (OpenAI's Videos API,
 * Veo operations), one served by both, and a text model (for "not a video model").
 */
export function videoCatalogYaml(simulatorUrl: string, options: { maxAgeSeconds?: number; minPollSeconds?: number; maxPollSeconds?: number } = {}): string {
  const timeouts = '{connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000}';
  return `
limits: {free_daily_requests: 5, requests_per_minute: 0}
tasks:
  video: {max_age_seconds: ${options.maxAgeSeconds ?? 7200}, min_poll_seconds: ${options.minPollSeconds ?? 0.05}, max_poll_seconds: ${options.maxPollSeconds ?? 0.2}}
providers:
  - {id: sim-openai, name: Sim OpenAI, api: openai, base_url: "${simulatorUrl}/openai/v1", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-gemini, name: Sim Gemini, api: gemini, base_url: "${simulatorUrl}/gemini/v1beta", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-anthropic, name: Sim Anthropic, api: anthropic, base_url: "${simulatorUrl}/anthropic", api_key: sim-key, timeouts: ${timeouts}}
models:
  - id: sim/sora
    name: "Sim: Sora"
    description: Simulated OpenAI video model.
    modalities: {input: [text, image], output: [video]}
    durations: [4, 8, 12]
    sizes: ["720x1280", "1280x720"]
    endpoints:
      - {provider: sim-openai, model: sora-sim, pricing: {video_second: 0.1}}
  - id: sim/veo
    name: "Sim: Veo"
    modalities: {input: [text], output: [video]}
    durations: [4, 6, 8]
    resolutions: [720p, 1080p]
    aspect_ratios: ["16:9", "9:16"]
    endpoints:
      - {provider: sim-gemini, model: veo-sim, pricing: {video_second: 0.35}}
  - id: sim/both
    name: "Sim: video on both"
    modalities: {input: [text], output: [video]}
    durations: [4, 8]
    resolutions: [720p]
    aspect_ratios: ["16:9"]
    endpoints:
      - {provider: sim-gemini, model: veo-both, pricing: {video_second: 0.2}}
      - {provider: sim-openai, model: sora-both, pricing: {video_second: 0.15}}
  - id: sim/chat
    name: "Sim: chat"
    context_length: 8000
    modalities: {input: [text], output: [text]}
    endpoints:
      - {provider: sim-anthropic, model: claude-sim, pricing: {prompt: 1, completion: 2}, supported_parameters: [max_tokens]}
`;
}

/** A clock the test moves by hand; the simulator keeps real time. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start = Date.parse('2026-11-21T12:00:00.000Z')) {
    this.current = start;
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

export interface VideoGateway {
  simulator: Simulator;
  test: TestApp;
  clock: ManualClock;
  url: string;
  key: string;
  accountId: string;
  close(): Promise<void>;
}

/** The real gateway over HTTP (task worker not started: tests drive `runOnce` with the clock). */
export async function startVideoGateway(
  options: { databaseUrl?: string; credits?: number; simulator?: SimulatorOptions; maxAgeSeconds?: number } = {},
): Promise<VideoGateway> {
  const simulator = await startSimulator({ videoDurationMs: 150, ...options.simulator });
  const databaseUrl = options.databaseUrl ?? 'sqlite::memory:';
  const config = buildTestConfig({ databaseUrl, yaml: videoCatalogYaml(simulator.url, { maxAgeSeconds: options.maxAgeSeconds }) });
  const clock = new ManualClock();
  const test = await startTestApp({ databaseUrl, config, clock });
  await test.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = test.app.server.address() as AddressInfo;
  const account = await test.createAccount({ credits: options.credits ?? 100 });
  return {
    simulator,
    test,
    clock,
    url: `http://127.0.0.1:${port}`,
    key: account.key,
    accountId: account.accountId,
    async close() {
      await test.close();
      await simulator.close();
    },
  };
}

/** Moves the clock and runs the engine until the task ends (the simulator's job runs in real time). */
export async function driveUntilDone(gateway: VideoGateway, taskId: string, options: { stepMs?: number; timeoutMs?: number } = {}): Promise<string> {
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

export async function readAccountMoney(gateway: Pick<VideoGateway, 'test'>, accountId: string): Promise<{ reserved: bigint; usage: bigint; credits: bigint }> {
  const row = await gateway.test.context.store.db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirstOrThrow();
  return { reserved: BigInt(row.reserved), usage: BigInt(row.total_usage), credits: BigInt(row.total_credits) };
}

export function jsonRequest(gateway: Pick<VideoGateway, 'url'>, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
