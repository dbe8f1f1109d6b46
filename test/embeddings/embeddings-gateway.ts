import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

export { readAccountMoney as readMoney, sendJson as call } from '../helpers/simulated-gateway.js';

/** USD per 1M tokens of the catalog below. */
export const smallPrice = 0.02;
export const adaPrice = 0.1;

/**
 * A catalog of embedding models served by the simulator over OpenAI's protocol: OpenAI itself,
 * Azure OpenAI (v1 and deployment URLs), a model on two endpoints (fail-over), a text model.
 */
export function embeddingsCatalogYaml(simulatorUrl: string): string {
  const timeouts = '{connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000}';
  return `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: sim-openai, name: Sim OpenAI, api: openai, base_url: "${simulatorUrl}/openai/v1", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-azure, name: Sim Azure, api: openai, platform: {kind: azure, api_version: "2024-10-21"}, base_url: "${simulatorUrl}/azure/openai", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-azure-v1, name: Sim Azure v1, api: openai, platform: {kind: azure}, base_url: "${simulatorUrl}/azure/openai/v1", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-anthropic, name: Sim Anthropic, api: anthropic, base_url: "${simulatorUrl}/anthropic", api_key: sim-key, timeouts: ${timeouts}}
models:
  - id: sim/embed-small
    name: "Sim: text-embedding-3-small"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1536, output_dimensions: any, max_input_tokens: 8191}
    endpoints:
      - {provider: sim-openai, model: text-embedding-3-small, pricing: {prompt: ${smallPrice}}}
  - id: sim/embed-ada
    name: "Sim: text-embedding-ada-002"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1536}
    endpoints:
      - {provider: sim-openai, model: text-embedding-ada-002, pricing: {prompt: ${adaPrice}}}
  - id: sim/embed-azure
    name: "Sim: embeddings on Azure"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 3072, output_dimensions: any}
    endpoints:
      - {provider: sim-azure, model: text-embedding-3-large, pricing: {prompt: 0.13}}
  - id: sim/embed-azure-v1
    name: "Sim: embeddings on Azure v1"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1536, output_dimensions: any}
    endpoints:
      - {provider: sim-azure-v1, model: text-embedding-3-small, pricing: {prompt: 0.02}}
  - id: sim/embed-twice
    name: "Sim: embeddings on OpenAI, then Azure"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1536, output_dimensions: any}
    endpoints:
      - {provider: sim-openai, model: embed-twice-openai, pricing: {prompt: 0.01}}
      - {provider: sim-azure, model: embed-twice-azure, pricing: {prompt: 0.02}}
  - id: sim/chat
    name: "Sim: chat"
    context_length: 8000
    modalities: {input: [text], output: [text]}
    endpoints:
      - {provider: sim-anthropic, model: claude-sim, pricing: {prompt: 1, completion: 2}, supported_parameters: [max_tokens]}
`;
}

/** The real gateway over HTTP with the simulator as every provider. */
export function startEmbeddingsGateway(options: { databaseUrl?: string; credits?: number } = {}): Promise<SimulatedGateway> {
  return startSimulatedGateway({ simulator: { apiKey: 'sim-key' }, databaseUrl: options.databaseUrl, credits: options.credits, catalogYaml: embeddingsCatalogYaml });
}

/** The exact charge of `tokens` at `usdPerMillion`, in nano-USD: the text rule, rounded up once. */
export function tokenCharge(tokens: number, usdPerMillion: number): bigint {
  return (BigInt(tokens) * BigInt(Math.round(usdPerMillion * 1e9)) + 999_999n) / 1_000_000n;
}
