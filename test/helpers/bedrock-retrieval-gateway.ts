import { simulatorAwsCredentials } from '@switchyard/simulator';
import { startSimulatedGateway, type SimulatedGateway } from './simulated-gateway.js';

export { readAccountMoney, sendJson } from './simulated-gateway.js';

/** USD per 1M tokens, and per search, of the catalog below (AWS's list prices). */
export const bedrockPrices = { titan: 0.02, cohereEmbed: 0.1, cohereRerankSearch: 0.002, amazonRerankSearch: 0.001 };

/**
 * Bedrock's embedding and rerank models served by the simulator's InvokeModel routes: one
 * provider with a Bedrock API key, one with AWS access keys (SigV4).
 */
export function bedrockRetrievalCatalogYaml(simulatorUrl: string): string {
  const timeouts = '{connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000}';
  const keys = simulatorAwsCredentials;
  return `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: bedrock-key, name: Bedrock (API key), api: bedrock, base_url: "${simulatorUrl}/bedrock", api_key: sim-key, timeouts: ${timeouts}}
  - {id: bedrock-sigv4, name: Bedrock (access keys), api: bedrock, platform: {kind: bedrock, region: us-east-1, access_key_id: ${keys.accessKeyId}, secret_access_key: "${keys.secretAccessKey}"}, base_url: "${simulatorUrl}/bedrock", timeouts: ${timeouts}}
models:
  - id: bedrock/titan-embed
    name: "Bedrock: Titan Text Embeddings V2"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1024, output_dimensions: [256, 512, 1024], max_input_tokens: 8192}
    endpoints:
      - {provider: bedrock-sigv4, model: "amazon.titan-embed-text-v2:0", pricing: {prompt: ${bedrockPrices.titan}}}
  - id: bedrock/cohere-embed
    name: "Bedrock: Cohere Embed English 3"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1024, max_input_tokens: 512}
    endpoints:
      - {provider: bedrock-key, model: cohere.embed-english-v3, pricing: {prompt: ${bedrockPrices.cohereEmbed}}}
  - id: bedrock/cohere-rerank
    name: "Bedrock: Cohere Rerank 3.5"
    modalities: {input: [text], output: [rerank]}
    endpoints:
      - {provider: bedrock-key, model: "cohere.rerank-v3-5:0", pricing: {prompt: 0, completion: 0, search: ${bedrockPrices.cohereRerankSearch}}}
  - id: bedrock/amazon-rerank
    name: "Bedrock: Amazon Rerank 1.0"
    modalities: {input: [text], output: [rerank]}
    endpoints:
      - {provider: bedrock-sigv4, model: "amazon.rerank-v1:0", pricing: {prompt: 0, completion: 0, search: ${bedrockPrices.amazonRerankSearch}}}
`;
}

export function startBedrockRetrievalGateway(options: { databaseUrl?: string } = {}): Promise<SimulatedGateway> {
  return startSimulatedGateway({ simulator: { apiKey: 'sim-key' }, databaseUrl: options.databaseUrl, catalogYaml: bedrockRetrievalCatalogYaml });
}

/** The exact charge of `tokens` at `usdPerMillion`, in nano-USD: the text rule, rounded up once. */
export function tokenCharge(tokens: number, usdPerMillion: number): bigint {
  return (BigInt(tokens) * BigInt(Math.round(usdPerMillion * 1e9)) + 999_999n) / 1_000_000n;
}

/** The row the request log wrote for a request (after flushing it). */
export async function requestRow(gateway: SimulatedGateway, requestId: string) {
  await gateway.test.context.requestLog.flush();
  return gateway.test.context.store.db.selectFrom('requests').selectAll().where('id', '=', requestId).executeTakeFirst();
}
