import type { SimulatorOptions } from '@switchyard/simulator';
import { ManualClock } from '../helpers/manual-clock.js';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

export { driveTask as driveUntilDone, readAccountMoney, sendJson as jsonRequest } from '../helpers/simulated-gateway.js';

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

export type VideoGateway = SimulatedGateway & { clock: ManualClock };

/** The real gateway over HTTP (task worker not started: tests drive `runOnce` with the clock). */
export async function startVideoGateway(
  options: { databaseUrl?: string; credits?: number; simulator?: SimulatorOptions; maxAgeSeconds?: number } = {},
): Promise<VideoGateway> {
  const clock = new ManualClock();
  const gateway = await startSimulatedGateway({
    simulator: { videoDurationMs: 150, ...options.simulator },
    databaseUrl: options.databaseUrl,
    credits: options.credits,
    clock,
    catalogYaml: (simulatorUrl) => videoCatalogYaml(simulatorUrl, { maxAgeSeconds: options.maxAgeSeconds }),
  });
  return { ...gateway, clock };
}
