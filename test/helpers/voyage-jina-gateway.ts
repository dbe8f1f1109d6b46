import { startSimulatedGateway, type SimulatedGateway } from './simulated-gateway.js';

export { readAccountMoney, sendJson } from './simulated-gateway.js';

/** USD per 1M tokens, the built-in catalog's list prices (catalog/builtin.yaml). */
export const voyagePrice = 0.06;
export const voyageRerankPrice = 0.05;
export const jinaPrice = 0.02;
export const jinaRerankPrice = 0.05;

/**
 * The built-in catalog's Voyage and Jina models (same ids, provider models and prices) with the
 * simulator's Voyage (`/voyage/v1`) and Jina (`/jina/v1`) APIs as their providers.
 */
export function voyageJinaCatalogYaml(simulatorUrl: string): string {
  const timeouts = '{connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000}';
  return `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: sim-voyage, name: Sim Voyage, api: voyage, base_url: "${simulatorUrl}/voyage/v1", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-jina, name: Sim Jina, api: jina, base_url: "${simulatorUrl}/jina/v1", api_key: sim-key, timeouts: ${timeouts}}
models:
  - id: voyage/voyage-3.5
    name: "Voyage AI: voyage-3.5"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1024, output_dimensions: [256, 512, 1024, 2048], max_input_tokens: 32000}
    endpoints:
      - {provider: sim-voyage, model: voyage-3.5, pricing: {prompt: ${voyagePrice}, completion: 0}}
  - id: voyage/rerank-2.5
    name: "Voyage AI: rerank-2.5"
    modalities: {input: [text], output: [rerank]}
    endpoints:
      - {provider: sim-voyage, model: rerank-2.5, pricing: {prompt: ${voyageRerankPrice}, completion: 0}}
  - id: jina/jina-embeddings-v3
    name: "Jina AI: jina-embeddings-v3"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1024, output_dimensions: any, max_input_tokens: 8192}
    endpoints:
      - {provider: sim-jina, model: jina-embeddings-v3, pricing: {prompt: ${jinaPrice}, completion: 0}}
  - id: jina/jina-reranker-v2-base-multilingual
    name: "Jina AI: jina-reranker-v2-base-multilingual"
    modalities: {input: [text], output: [rerank]}
    endpoints:
      - {provider: sim-jina, model: jina-reranker-v2-base-multilingual, pricing: {prompt: ${jinaRerankPrice}, completion: 0}}
`;
}

/** The gateway over real HTTP with the simulator (key `sim-key`) as Voyage and Jina. */
export function startVoyageJinaGateway(options: { credits?: number } = {}): Promise<SimulatedGateway> {
  return startSimulatedGateway({ simulator: { apiKey: 'sim-key' }, credits: options.credits, catalogYaml: voyageJinaCatalogYaml });
}

/** The exact charge of `tokens` at `usdPerMillion`, in nano-USD: the text rule, rounded up once. */
export function tokenCharge(tokens: number, usdPerMillion: number): bigint {
  return (BigInt(tokens) * BigInt(Math.round(usdPerMillion * 1e9)) + 999_999n) / 1_000_000n;
}
