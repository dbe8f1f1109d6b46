import { normalizeConfig } from '../../src/config/normalize-config.js';
import { parseConfigText } from '../../src/config/load-config.js';
import { readServerConfig } from '../../src/config/read-server-config.js';
import type { Config } from '../../src/config/types.js';

/** A small catalog for tests: one configured provider, one without a key, text, free and media models. */
export const testCatalogYaml = `
limits:
  free_daily_requests: 5
  requests_per_minute: 0
providers:
  - id: sim
    name: Simulator
    api: openai
    base_url: \${SIM_URL:-http://127.0.0.1:9}/openai/v1
    api_key: test-key
  - id: sim-anthropic
    name: Simulator Anthropic
    api: anthropic
    base_url: \${SIM_URL:-http://127.0.0.1:9}/anthropic
    api_key: test-key
  - id: offline
    name: Offline Provider
    api: openai
    base_url: https://offline.invalid/v1
    api_key: \${OFFLINE_API_KEY}
models:
  - id: acme/chat-small
    name: "Acme: Chat Small"
    description: A small test model.
    created: 1700000000
    context_length: 8192
    tokenizer: GPT
    modalities: {input: [text, image], output: [text]}
    endpoints:
      - provider: sim
        model: chat-small
        pricing: {prompt: 0.15, completion: 0.6, cached_prompt: 0.075}
        supported_parameters: [max_tokens, temperature, top_p, stop, seed, tools, tool_choice, response_format]
        max_completion_tokens: 4096
      - provider: sim-anthropic
        model: chat-small-anthropic
        pricing: {prompt: 0.2, completion: 0.8}
        supported_parameters: [max_tokens, temperature, top_p, top_k, stop, tools, tool_choice]
        max_completion_tokens: 4096
      - provider: offline
        model: chat-small
        pricing: {prompt: 0.1, completion: 0.4}
        supported_parameters: [max_tokens]
  - id: acme/chat-small:free
    name: "Acme: Chat Small (free)"
    free: true
    context_length: 8192
    modalities: {input: [text], output: [text]}
    endpoints:
      - provider: sim
        model: chat-small-free
        pricing: {prompt: 0, completion: 0}
        supported_parameters: [max_tokens, temperature]
  - id: other/painter
    name: "Other: Painter"
    modalities: {input: [text], output: [image]}
    sizes: ["1024x1024"]
    endpoints:
      - provider: sim
        model: painter-1
        pricing: {image: 0.04}
`;

export function buildTestConfig(options: { databaseUrl?: string; yaml?: string; env?: NodeJS.ProcessEnv; adminToken?: string | null } = {}): Config {
  const env = { ...process.env, ...options.env };
  const server = {
    ...readServerConfig({}),
    databaseUrl: options.databaseUrl ?? 'sqlite::memory:',
    adminToken: options.adminToken === undefined ? 'test-admin-token' : options.adminToken,
    logLevel: 'silent',
  };
  return normalizeConfig(parseConfigText(options.yaml ?? testCatalogYaml, 'test.yaml', env), 'test.yaml', server);
}
