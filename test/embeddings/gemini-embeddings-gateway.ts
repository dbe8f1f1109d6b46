import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/** USD per 1M tokens of the catalog below. */
export const geminiPrice = 0.15;
export const vertexPrice = 0.1;
export const openaiPrice = 0.02;

/**
 * Embedding models served by the simulator: gemini-embedding-001 on Google AI Studio's wire,
 * text-embedding-005 and gemini-embedding-001 on Vertex AI (an express-mode key, so no OAuth
 * round trip), and text-embedding-3-small on OpenAI's wire — the Gemini style serves them all.
 * `extra` adds providers and models (a replayed provider, say).
 */
export function geminiEmbeddingsCatalogYaml(simulatorUrl: string, extra: { providers?: string; models?: string } = {}): string {
  const timeouts = '{connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000}';
  return `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: sim-gemini, name: Sim Gemini, api: gemini, base_url: "${simulatorUrl}/gemini/v1beta", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-vertex, name: Sim Vertex, api: gemini, platform: {kind: vertex, project: sim-project, location: global}, base_url: "${simulatorUrl}/vertex", api_key: sim-key, timeouts: ${timeouts}}
  - {id: sim-openai, name: Sim OpenAI, api: openai, base_url: "${simulatorUrl}/openai/v1", api_key: sim-key, timeouts: ${timeouts}}
${extra.providers ?? ''}models:
  - id: sim/gemini-embed
    name: "Sim: gemini-embedding-001"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 3072, output_dimensions: any, max_input_tokens: 2048}
    endpoints:
      - {provider: sim-gemini, model: gemini-embedding-001, pricing: {prompt: ${geminiPrice}}}
  - id: sim/vertex-embed
    name: "Sim: text-embedding-005 on Vertex"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 768, output_dimensions: any, max_input_tokens: 2048}
    endpoints:
      - {provider: sim-vertex, model: text-embedding-005, pricing: {prompt: ${vertexPrice}}}
  - id: sim/vertex-gemini-embed
    name: "Sim: gemini-embedding-001 on Vertex"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 3072, output_dimensions: any, max_input_tokens: 2048}
    endpoints:
      - {provider: sim-vertex, model: gemini-embedding-001, pricing: {prompt: ${geminiPrice}}}
  - id: sim/openai-embed
    name: "Sim: text-embedding-3-small"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1536, output_dimensions: any, max_input_tokens: 8191}
    endpoints:
      - {provider: sim-openai, model: text-embedding-3-small, pricing: {prompt: ${openaiPrice}}}
${extra.models ?? ''}`;
}

export function startGeminiEmbeddingsGateway(options: { credits?: number; extra?: { providers?: string; models?: string } } = {}): Promise<SimulatedGateway> {
  return startSimulatedGateway({ simulator: { apiKey: 'sim-key' }, credits: options.credits, catalogYaml: (url) => geminiEmbeddingsCatalogYaml(url, options.extra) });
}

/** The request log row of a request, once its batch is written. */
export async function readLogRow(gateway: SimulatedGateway, requestId: string): Promise<{ endpoint: string; model: string; provider: string; prompt_tokens: number | bigint; cost: string | number | bigint; estimated: number | boolean; status: string }> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const row = await gateway.test.context.store.db.selectFrom('requests').selectAll().where('id', '=', requestId).executeTakeFirst();
    if (row) return row as never;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no request log row for ${requestId}`);
}
