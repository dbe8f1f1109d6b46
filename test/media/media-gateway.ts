import { ManualClock } from '../helpers/manual-clock.js';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

export { driveTask, readAccountMoney as readMoney, sendJson as call } from '../helpers/simulated-gateway.js';

/**
 * A catalog of speech and image models, each served by the simulator over one protocol:
 * OpenAI speech and images, Gemini TTS and images, fal's queue; plus a model served by two
 * image endpoints (fail-over), a free image model and a text model.
 */
export function mediaCatalogYaml(simulatorUrl: string, options: { syncWindowMs?: number } = {}): string {
  const timeouts = '{connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000}';
  return `
limits: {free_daily_requests: 5, requests_per_minute: 0}
media: {sync_window_ms: ${options.syncWindowMs ?? 2000}, poll_interval_ms: 20, fetch_timeout_ms: 2000, fetch_max_bytes: 200000}
tasks:
  image: {min_poll_seconds: 0.05, max_poll_seconds: 0.2}
providers:
  - {id: sim-openai, name: Sim OpenAI, api: openai, base_url: "${simulatorUrl}/openai/v1", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-gemini, name: Sim Gemini, api: gemini, base_url: "${simulatorUrl}/gemini/v1beta", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-fal, name: Sim fal, api: fal, base_url: "${simulatorUrl}/fal", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-anthropic, name: Sim Anthropic, api: anthropic, base_url: "${simulatorUrl}/anthropic", api_key: sim-key, timeouts: ${timeouts}}
models:
  - id: sim/tts
    name: "Sim: TTS"
    modalities: {input: [text], output: [audio]}
    voices: [alloy, nova]
    endpoints:
      - {provider: sim-openai, model: tts-sim, pricing: {characters: 15}}
  - id: sim/gemini-tts
    name: "Sim: Gemini TTS"
    modalities: {input: [text], output: [audio]}
    voices: [Kore, Puck]
    endpoints:
      - {provider: sim-gemini, model: gemini-tts-sim, pricing: {characters: 10}}
  - id: sim/painter
    name: "Sim: Painter"
    description: Simulated OpenAI image model.
    modalities: {input: [text, image], output: [image]}
    sizes: ["256x256", "64x64"]
    qualities: [low, high]
    max_images: 4
    endpoints:
      - {provider: sim-openai, model: img-sim, pricing: {image: 0.04}}
  - id: sim/sketcher
    name: "Sim: Sketcher (generation only)"
    modalities: {input: [text], output: [image]}
    sizes: ["64x64"]
    endpoints:
      - {provider: sim-openai, model: sketch-sim, pricing: {image: 0.01}}
  - id: sim/flux
    name: "Sim: Flux"
    modalities: {input: [text, image], output: [image]}
    sizes: ["32x32", "64x64"]
    max_images: 2
    endpoints:
      - {provider: sim-fal, model: fal-ai/flux/dev, pricing: {image: 0.025}}
  - id: sim/gemini-image
    name: "Sim: Gemini image"
    modalities: {input: [text, image], output: [image]}
    aspect_ratios: ["1:1", "16:9"]
    resolutions: [1K]
    max_images: 2
    endpoints:
      - {provider: sim-gemini, model: gemini-image-sim, pricing: {image: 0.134}}
  - id: sim/either
    name: "Sim: image on fal and OpenAI"
    modalities: {input: [text], output: [image]}
    sizes: ["64x64"]
    endpoints:
      - {provider: sim-fal, model: fal-ai/either, pricing: {image: 0.03}}
      - {provider: sim-openai, model: either-sim, pricing: {image: 0.02}}
  - id: sim/free-painter:free
    name: "Sim: Painter (free)"
    free: true
    modalities: {input: [text], output: [image]}
    sizes: ["64x64"]
    endpoints:
      - {provider: sim-openai, model: img-free, pricing: {image: 0}}
  - id: sim/chat
    name: "Sim: chat"
    context_length: 8000
    modalities: {input: [text], output: [text]}
    endpoints:
      - {provider: sim-anthropic, model: claude-sim, pricing: {prompt: 1, completion: 2}, supported_parameters: [max_tokens]}
`;
}

export type MediaGateway = SimulatedGateway & { clock: ManualClock };

/** The real gateway over HTTP with the simulator as every provider; the task worker is driven by the test. */
export async function startMediaGateway(options: { databaseUrl?: string; credits?: number; syncWindowMs?: number } = {}): Promise<MediaGateway> {
  const clock = new ManualClock();
  const gateway = await startSimulatedGateway({
    simulator: { apiKey: 'sim-key' },
    databaseUrl: options.databaseUrl,
    credits: options.credits,
    clock,
    catalogYaml: (simulatorUrl) => mediaCatalogYaml(simulatorUrl, { syncWindowMs: options.syncWindowMs }),
  });
  return { ...gateway, clock };
}

/** Ledger charges recorded for one request id (exactly-once checks). */
export async function chargesOf(gateway: MediaGateway, requestId: string): Promise<bigint[]> {
  const rows = await gateway.test.context.store.db.selectFrom('ledger_entries').select(['amount', 'kind']).where('request_id', '=', requestId).execute();
  return rows.filter((row) => row.kind === 'charge').map((row) => BigInt(row.amount));
}
