import { startSimulatedGateway, type SimulatedGateway } from './simulated-gateway.js';

export { readAccountMoney, sendJson } from './simulated-gateway.js';

/**
 * A catalog of Cohere models served by the simulator's Cohere v2 API (`/cohere`): a rerank model
 * on two Cohere providers (fail-over), Cohere's embed models, and a text model (to show a rerank
 * route refuses a model without a rerank endpoint). Search prices are Cohere's list price
 * ($2.00 per 1,000 searches) unless the test asks for another.
 */
export function cohereCatalogYaml(simulatorUrl: string, options: { searchPrice?: string } = {}): string {
  const timeouts = '{connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000}';
  const search = options.searchPrice ?? '0.002';
  return `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: sim-cohere, name: Sim Cohere, api: cohere, base_url: "${simulatorUrl}/cohere", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-cohere-backup, name: Sim Cohere (backup), api: cohere, base_url: "${simulatorUrl}/cohere", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-openai, name: Sim OpenAI, api: openai, base_url: "${simulatorUrl}/openai/v1", api_key: sim-key, timeouts: ${timeouts}}
models:
  - id: cohere/rerank-v3.5
    name: "Cohere: Rerank 3.5"
    modalities: {input: [text], output: [rerank]}
    endpoints:
      - {provider: sim-cohere, model: rerank-v3.5, pricing: {prompt: 0, completion: 0, search: ${search}}}
      - {provider: sim-cohere-backup, model: rerank-english-v3.0, pricing: {prompt: 0, completion: 0, search: ${search}}}
  - id: cohere/embed-v4.0
    name: "Cohere: Embed 4"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1536, output_dimensions: [256, 512, 1024, 1536]}
    endpoints:
      - {provider: sim-cohere, model: embed-v4.0, pricing: {prompt: 0.12, completion: 0}}
  - id: cohere/embed-english-v3.0
    name: "Cohere: Embed English 3"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1024}
    endpoints:
      - {provider: sim-cohere, model: embed-english-v3.0, pricing: {prompt: 0.10, completion: 0}}
  - id: sim/chat
    name: "Sim: chat"
    context_length: 32000
    modalities: {input: [text], output: [text]}
    endpoints:
      - {provider: sim-openai, model: gpt-sim, pricing: {prompt: 1, completion: 2}, supported_parameters: [max_tokens]}
`;
}

/** The gateway over real HTTP with the simulator (key `sim-key`) as Cohere. */
export function startCohereGateway(options: { credits?: number; searchPrice?: string } = {}): Promise<SimulatedGateway> {
  return startSimulatedGateway({ simulator: { apiKey: 'sim-key' }, credits: options.credits, catalogYaml: (url) => cohereCatalogYaml(url, { searchPrice: options.searchPrice }) });
}
