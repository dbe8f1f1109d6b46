/**
 * A catalog with one model of each new kind — an embedding model (per token), a rerank model
 * on each retrieval vendor (per search on Cohere and Jina, per token on Voyage) and a
 * moderation model (price 0) — beside a text model, on providers of the protocols cohere, voyage
 * and jina. Listing needs no call, so the providers' URLs lead nowhere.
 */
export function retrievalCatalogYaml(simulatorUrl: string): string {
  const timeouts = '{connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000}';
  return `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: sim-openai, name: Sim OpenAI, api: openai, base_url: "${simulatorUrl}/openai/v1", api_key: sim-key, timeouts: ${timeouts}}
  - {id: cohere, name: Cohere, api: cohere, base_url: "http://127.0.0.1:9/cohere/v2", api_key: co-key, timeouts: ${timeouts}}
  - {id: voyage, name: Voyage AI, api: voyage, base_url: "http://127.0.0.1:9/voyage/v1", api_key: vo-key, timeouts: ${timeouts}}
  - {id: jina, name: Jina AI, api: jina, base_url: "http://127.0.0.1:9/jina/v1", api_key: jina-key, timeouts: ${timeouts}}
models:
  - id: sim/chat
    name: "Sim: chat"
    context_length: 8000
    modalities: {input: [text], output: [text]}
    endpoints:
      - {provider: sim-openai, model: gpt-sim, pricing: {prompt: 1, completion: 2}}
  - id: openai/text-embedding-3-small
    name: "OpenAI: Text Embedding 3 Small"
    context_length: 8192
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1536, output_dimensions: any, max_input_tokens: 8191}
    endpoints:
      - {provider: sim-openai, model: text-embedding-3-small, pricing: {prompt: 0.02}}
  - id: cohere/rerank-v3.5
    name: "Cohere: Rerank 3.5"
    modalities: {input: [text], output: [rerank]}
    endpoints:
      - {provider: cohere, model: rerank-v3.5, pricing: {search: 0.002}}
  - id: voyage/rerank-2.5
    name: "Voyage: Rerank 2.5"
    modalities: {input: [text], output: [rerank]}
    endpoints:
      - {provider: voyage, model: rerank-2.5, pricing: {prompt: 0.05}}
  - id: jina/jina-reranker-v2-base-multilingual
    name: "Jina: Reranker v2"
    modalities: {input: [text], output: [rerank]}
    endpoints:
      - {provider: jina, model: jina-reranker-v2-base-multilingual, pricing: {search: 0.0005}}
  - id: openai/omni-moderation-latest
    name: "OpenAI: Omni Moderation"
    modalities: {input: [text, image], output: [moderation]}
    endpoints:
      - {provider: sim-openai, model: omni-moderation-latest, pricing: {prompt: 0, completion: 0}}
`;
}
