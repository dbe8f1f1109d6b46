import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * A catalog of moderation models served by the simulator's OpenAI `/moderations`: OpenAI's omni
 * model at price 0 (as the built-in catalog lists it), the same model at 2 USD per 1M tokens (an
 * operator's priced moderation model), and a text-only moderation model. Azure OpenAI (no
 * moderations API) is listed first for the omni model and alone for another, to show it is never routed.
 */
export function moderationCatalogYaml(simulatorUrl: string): string {
  const timeouts = '{connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000}';
  return `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: sim-openai, name: Sim OpenAI, api: openai, base_url: "${simulatorUrl}/openai/v1", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-azure, name: Sim Azure, api: openai, platform: {kind: azure}, base_url: "${simulatorUrl}/azure/openai/v1", api_key: sim-key, timeouts: ${timeouts}}
models:
  - id: openai/omni-moderation-latest
    name: "Sim: omni moderation"
    modalities: {input: [text, image], output: [moderation]}
    endpoints:
      - {provider: sim-azure, model: omni-moderation-latest, pricing: {prompt: 0, completion: 0}}
      - {provider: sim-openai, model: omni-moderation-latest, pricing: {prompt: 0, completion: 0}}
  - id: sim/azure-only-moderation
    name: "Sim: moderation listed on Azure only"
    modalities: {input: [text], output: [moderation]}
    endpoints:
      - {provider: sim-azure, model: omni-moderation-latest, pricing: {prompt: 0, completion: 0}}
  - id: sim/priced-moderation
    name: "Sim: priced moderation"
    modalities: {input: [text, image], output: [moderation]}
    endpoints:
      - {provider: sim-openai, model: omni-moderation-2024-09-26, pricing: {prompt: 2, completion: 0}}
  - id: sim/text-moderation
    name: "Sim: text moderation"
    modalities: {input: [text], output: [moderation]}
    endpoints:
      - {provider: sim-openai, model: text-moderation-007, pricing: {prompt: 0, completion: 0}}
  - id: sim/chat
    name: "Sim: chat"
    context_length: 8000
    modalities: {input: [text], output: [text]}
    endpoints:
      - {provider: sim-openai, model: gpt-sim, pricing: {prompt: 1, completion: 2}}
`;
}

export function startModerationGateway(options: { databaseUrl?: string; credits?: number } = {}): Promise<SimulatedGateway> {
  return startSimulatedGateway({ simulator: { apiKey: 'sim-key' }, databaseUrl: options.databaseUrl, credits: options.credits, catalogYaml: moderationCatalogYaml });
}
