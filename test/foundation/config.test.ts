import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { loadConfig } from '../../src/config/load-config.js';
import { testCatalogYaml } from '../helpers/test-config.js';

function writeConfig(text: string): string {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-config-'));
  const path = join(directory, 'switchyard.yaml');
  writeFileSync(path, text);
  return path;
}

function loadError(text: string, env: NodeJS.ProcessEnv = {}): string {
  const path = writeConfig(text);
  try {
    loadConfig({ SWITCHYARD_CONFIG: path, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(path);
    return (error as Error).message;
  }
  throw new Error('expected the config to be refused');
}

describe('config loading', () => {
  it('loads the built-in catalog when no file is given, with exact prices and providers off without keys', () => {
    const config = loadConfig({}, mkdtempSync(join(tmpdir(), 'switchyard-empty-')));
    expect(config.source).toBe('built-in catalog');
    expect(config.models.length).toBeGreaterThan(20);
    expect(config.providers.map((provider) => provider.id)).toEqual(
      expect.arrayContaining(['openai', 'anthropic', 'google', 'groq', 'deepseek', 'mistral', 'together', 'openrouter']),
    );
    expect(config.providers.every((provider) => provider.enabled === false)).toBe(true);
    expect(config.models.some((model) => model.free)).toBe(true);
    for (const model of config.models) {
      for (const endpoint of model.endpoints) expect(typeof endpoint.pricing.prompt).toBe('bigint');
    }
  });

  it('enables a built-in provider when its API key variable is set, and honours a base URL override', () => {
    const config = loadConfig({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9999/v1' }, tmpdir());
    const openai = config.providers.find((provider) => provider.id === 'openai');
    expect(openai).toMatchObject({ enabled: true, auth: { kind: 'bearer', token: 'sk-test' }, baseUrl: 'http://127.0.0.1:9999/v1' });
  });

  it('reads the environment (port, host, database, admin token) with defaults', () => {
    const config = loadConfig({ SWITCHYARD_CONFIG: writeConfig(testCatalogYaml), PORT: '9000', SWITCHYARD_ADMIN_TOKEN: 'secret' });
    expect(config.server).toMatchObject({ port: 9000, host: '127.0.0.1', databaseUrl: 'sqlite:./data/switchyard.db', adminToken: 'secret', redisUrl: null });
  });

  it('interpolates ${VAR} and ${VAR:-default} in string values only', () => {
    const config = loadConfig({ SWITCHYARD_CONFIG: writeConfig(testCatalogYaml), SIM_URL: 'http://127.0.0.1:4000', OFFLINE_API_KEY: 'k' });
    expect(config.providers[0].baseUrl).toBe('http://127.0.0.1:4000/openai/v1');
    expect(config.providers.find((provider) => provider.id === 'offline')?.enabled).toBe(true);
    const fallback = loadConfig({ SWITCHYARD_CONFIG: writeConfig(testCatalogYaml) });
    expect(fallback.providers[0].baseUrl).toBe('http://127.0.0.1:9/openai/v1');
  });

  it('converts USD prices exactly into nano-USD per 1M tokens', () => {
    const config = loadConfig({ SWITCHYARD_CONFIG: writeConfig(testCatalogYaml) });
    const endpoint = config.models[0].endpoints[0];
    expect(endpoint.pricing.prompt).toBe(150_000_000n);
    expect(endpoint.pricing.completion).toBe(600_000_000n);
    expect(endpoint.pricing.cachedPrompt).toBe(75_000_000n);
  });

  it('names the file, the field path and the expectation for an unknown field', () => {
    const message = loadError(testCatalogYaml.replace('  requests_per_minute: 0', '  requests_per_minute: 0\n  burst: 3'));
    expect(message).toContain('limits.burst');
    expect(message).toContain('unknown field');
  });

  it('refuses a wrong wire protocol naming the allowed ones', () => {
    const message = loadError(testCatalogYaml.replace('api: anthropic', 'api: palm'));
    expect(message).toContain('providers[1].api');
    expect(message).toContain('openai, anthropic, gemini');
  });

  it('reads an Azure OpenAI platform block, and refuses it on a protocol Azure does not serve, naming the field', () => {
    const azure = testCatalogYaml.replace('    api: openai\n', '    api: openai\n    platform: {kind: azure, api_version: "2024-10-21"}\n');
    const provider = loadConfig({ SWITCHYARD_CONFIG: writeConfig(azure), }).providers[0];
    expect(provider.platform).toEqual({ kind: 'azure', apiVersion: '2024-10-21' });
    expect(provider.auth).toEqual({ kind: 'api-key-header', header: 'api-key', key: 'test-key' });
    expect(loadError(testCatalogYaml.replace('api: anthropic', 'api: anthropic\n    platform: {kind: azure}'))).toContain('providers[1].platform.kind: azure serves the openai protocol');
    expect(loadError(testCatalogYaml.replace('    api: openai\n', '    api: openai\n    platform: {kind: azure, region: eu}\n'))).toContain('providers[0].platform: expected {kind: azure, api_version?} or {kind: vertex');
  });

  it('reads a Vertex AI platform block with a service account, and names the field of a bad one without echoing it', () => {
    const vertex = (account: string) =>
      testCatalogYaml.replace('    api: anthropic\n', `    api: anthropic\n    platform: {kind: vertex, project: p1, location: us-east5, service_account: '${account}'}\n`);
    const account = JSON.stringify({ client_email: 'sa@p1.iam.gserviceaccount.com', private_key: 'PEM', token_uri: 'http://127.0.0.1:9/token' });
    const provider = loadConfig({ SWITCHYARD_CONFIG: writeConfig(vertex(account)) }).providers[1];
    expect(provider.platform).toEqual({ kind: 'vertex', project: 'p1', location: 'us-east5' });
    expect(provider.auth).toMatchObject({ kind: 'google-service-account', clientEmail: 'sa@p1.iam.gserviceaccount.com', tokenUri: 'http://127.0.0.1:9/token' });
    const bad = loadError(vertex('not-json-secret'));
    expect(bad).toContain('providers[1].platform.service_account: expected the JSON of a service account key file');
    expect(bad).not.toContain('not-json-secret');
    expect(loadError(vertex('{}'))).toContain('client_email and private_key');
    expect(loadError(testCatalogYaml.replace('    api: openai\n', '    api: openai\n    platform: {kind: vertex, project: p, location: global}\n'))).toContain(
      'providers[0].platform.kind: vertex serves the gemini and anthropic protocols',
    );
  });

  it('reads an AWS Bedrock platform block with keys from the environment, or a Bedrock API key, and names the field of an incomplete one', () => {
    const bedrock = (platform: string, keepApiKey = true) => {
      const yaml = testCatalogYaml.replace('    api: anthropic\n', `    api: anthropic\n    platform: {kind: bedrock, region: eu-west-1${platform}}\n`);
      return keepApiKey ? yaml : yaml.replace('/anthropic\n    api_key: test-key\n', '/anthropic\n');
    };
    const signed = loadConfig({ SWITCHYARD_CONFIG: writeConfig(bedrock(', access_key_id: "${AK}", secret_access_key: "${SK}", session_token: "${ST}"', false)), AK: 'AKIAEXAMPLE', SK: 'secret', ST: 'token' });
    const provider = signed.providers[1];
    expect(provider).toMatchObject({ enabled: true, platform: { kind: 'bedrock', region: 'eu-west-1' }, apiKeyVariable: 'AK' });
    expect(provider.auth).toEqual({ kind: 'aws-sigv4', accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token', region: 'eu-west-1', service: 'bedrock' });
    // The key id's variable unset: off, sending nothing.
    const off = loadConfig({ SWITCHYARD_CONFIG: writeConfig(bedrock(', access_key_id: "${AK}", secret_access_key: "${SK}"', false)), SK: 'secret' }).providers[1];
    expect(off).toMatchObject({ enabled: false, auth: { kind: 'none' } });
    // No keys: the provider's api_key is a Bedrock API key, a bearer token.
    expect(loadConfig({ SWITCHYARD_CONFIG: writeConfig(bedrock('')) }).providers[1].auth).toEqual({ kind: 'bearer', token: 'test-key' });
    expect(loadError(bedrock(', access_key_id: AKIAEXAMPLE'))).toContain('providers[1].platform.secret_access_key: expected the secret access key that goes with access_key_id');
    expect(loadError(bedrock(', secret_access_key: very-secret'))).toContain('providers[1].platform.access_key_id: expected the access key id');
    expect(loadError(bedrock(', session_token: tok'))).toContain('providers[1].platform.session_token: expected access_key_id and secret_access_key');
    const both = loadError(bedrock(', access_key_id: AKIAEXAMPLE, secret_access_key: very-secret'));
    expect(both).toContain('providers[1].platform.access_key_id: expected either AWS access keys (SigV4) or api_key');
    expect(both).not.toContain('very-secret');
    expect(loadError(testCatalogYaml.replace('    api: openai\n', '    api: openai\n    platform: {kind: bedrock, region: us-east-1}\n'))).toContain('providers[0].platform.kind: bedrock serves Claude through InvokeModel (api: anthropic)');

    // The built-in catalog's Bedrock provider: off without the standard AWS variables, signed with them.
    expect(loadConfig({}, tmpdir()).providers.find((one) => one.id === 'aws-bedrock-anthropic')).toMatchObject({ enabled: false, auth: { kind: 'none' }, apiKeyVariable: 'AWS_ACCESS_KEY_ID' });
    const builtin = loadConfig({ AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_REGION: 'eu-central-1' }, tmpdir());
    expect(builtin.providers.find((one) => one.id === 'aws-bedrock-anthropic')).toMatchObject({
      enabled: true,
      baseUrl: 'https://bedrock-runtime.eu-central-1.amazonaws.com',
      auth: { kind: 'aws-sigv4', accessKeyId: 'AKIAEXAMPLE', region: 'eu-central-1', service: 'bedrock' },
    });
    const sonnet = builtin.models.find((one) => one.id === 'anthropic/claude-sonnet-4.5')!;
    expect(sonnet.endpoints.find((endpoint) => endpoint.provider === 'aws-bedrock-anthropic')).toMatchObject({ model: 'global.anthropic.claude-sonnet-4-5-20250929-v1:0', pricing: { prompt: 3_000_000_000n, completion: 15_000_000_000n } });
  });

  it('lists the clouds in the built-in catalog, off until their credentials are set, at their list prices', () => {
    const off = loadConfig({}, tmpdir());
    for (const id of ['azure', 'google-vertex', 'google-vertex-anthropic']) expect(off.providers.find((provider) => provider.id === id)).toMatchObject({ enabled: false, auth: { kind: 'none' } });
    expect(off.providers.find((provider) => provider.id === 'google-vertex')?.apiKeyVariable).toBe('VERTEX_SERVICE_ACCOUNT_JSON');
    const on = loadConfig({ AZURE_OPENAI_API_KEY: 'az-key', AZURE_OPENAI_BASE_URL: 'https://res.openai.azure.com/openai/v1' }, tmpdir());
    expect(on.providers.find((provider) => provider.id === 'azure')).toMatchObject({ enabled: true, platform: { kind: 'azure' }, auth: { kind: 'api-key-header', header: 'api-key', key: 'az-key' } });
    const haiku = on.models.find((model) => model.id === 'anthropic/claude-haiku-4.5')!;
    expect(haiku.endpoints.find((endpoint) => endpoint.provider === 'google-vertex-anthropic')).toMatchObject({ model: 'claude-haiku-4-5@20251001', pricing: { prompt: 1_000_000_000n, completion: 5_000_000_000n } });
    const mini = on.models.find((model) => model.id === 'openai/gpt-4o-mini')!;
    expect(mini.endpoints.find((endpoint) => endpoint.provider === 'azure')?.pricing.prompt).toBe(150_000_000n);
  });

  it('refuses a price of the wrong type with its path', () => {
    const message = loadError(testCatalogYaml.replace('prompt: 0.15', 'prompt: cheap'));
    expect(message).toContain('models[0].endpoints[0].pricing.prompt');
    expect(message).toMatch(/expected/);
  });

  it('refuses an endpoint naming an unknown provider', () => {
    const message = loadError(testCatalogYaml.replace('- provider: offline', '- provider: nowhere'));
    expect(message).toContain('models[0].endpoints[2].provider');
    expect(message).toContain('"nowhere"');
  });

  it('refuses an unknown supported parameter, a priced free model, duplicate ids and a text model without context length', () => {
    expect(loadError(testCatalogYaml.replace('supported_parameters: [max_tokens]', 'supported_parameters: [max_tokens, logit_bias]'))).toContain(
      'models[0].endpoints[2].supported_parameters[1]',
    );
    expect(loadError(testCatalogYaml.replace('pricing: {prompt: 0, completion: 0}', 'pricing: {prompt: 1, completion: 0}'))).toContain(
      'expected all prices to be 0 for a free model',
    );
    expect(loadError(testCatalogYaml.replace('id: acme/chat-small:free', 'id: acme/chat-small'))).toContain('appears twice');
    expect(loadError(testCatalogYaml.replace('    context_length: 8192\n    tokenizer: GPT', '    tokenizer: GPT'))).toContain('models[0].context_length');
  });

  it('reports invalid YAML and a missing file', () => {
    expect(loadError('providers: [\n')).toContain('invalid YAML');
    expect(() => loadConfig({ SWITCHYARD_CONFIG: '/nonexistent/switchyard.yaml' })).toThrow(/cannot read the config file/);
  });

  it('refuses a bad environment value', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT: expected an integer/);
  });

  it('reads hosted_tools: the search backend with its key from ${VAR}, the price in nano-USD, defaults, fetch and the image model', () => {
    const yaml = `${testCatalogYaml}hosted_tools:
  web_search: {backend: brave, api_key: "\${BRAVE_API_KEY}", price_per_search: 0.004, max_results: 3}
  web_fetch: {enabled: true, max_bytes: 50000}
  image_generation: {model: other/painter}
`;
    const config = loadConfig({ SWITCHYARD_CONFIG: writeConfig(yaml), BRAVE_API_KEY: 'brave-secret' });
    expect(config.hostedTools).toEqual({
      webSearch: { backend: 'brave', baseUrl: 'https://api.search.brave.com/res/v1', apiKey: 'brave-secret', pricePerSearch: 4_000_000n, maxResults: 3, maxUses: 5, timeoutMs: 10_000 },
      webFetch: { maxBytes: 50_000 },
      imageGeneration: { model: 'other/painter' },
    });
    const off = loadConfig({ SWITCHYARD_CONFIG: writeConfig(`${testCatalogYaml}hosted_tools:\n  web_fetch: {enabled: false}\n`) });
    expect(off.hostedTools).toEqual({});
  });

  it('refuses hosted_tools naming the field: an unknown backend, a missing key or instance, a bad price, a text model for images', () => {
    const withTools = (block: string) => `${testCatalogYaml}hosted_tools:\n${block}\n`;
    expect(loadError(withTools('  web_search: {backend: bing}'))).toMatch(/hosted_tools\.web_search\.backend: expected one of searxng, brave, tavily, exa/);
    expect(loadError(withTools('  web_search: {backend: tavily, api_key: "\${TAVILY_API_KEY}"}'))).toMatch(/hosted_tools\.web_search\.api_key: expected the tavily API key/);
    expect(loadError(withTools('  web_search: {backend: searxng}'))).toMatch(/hosted_tools\.web_search\.base_url: expected the URL of the searxng instance/);
    expect(loadError(withTools('  web_search: {backend: searxng, base_url: "http://127.0.0.1:8888", price_per_search: 0.0000000001}'))).toMatch(
      /hosted_tools\.web_search\.price_per_search: expected a USD amount with at most 9 decimal places/,
    );
    expect(loadError(withTools('  web_search: {backend: searxng, base_url: "http://127.0.0.1:8888", max_results: 0}'))).toMatch(/hosted_tools\.web_search\.max_results: expected an integer from 1 to 20/);
    expect(loadError(withTools('  image_generation: {model: acme/chat-small}'))).toMatch(/hosted_tools\.image_generation\.model: expected the id of a configured image model, got "acme\/chat-small"/);
    expect(loadError(withTools('  web_fetch: {enabled: true, max_bytes: 10, extra: 1}'))).toMatch(/hosted_tools\.web_fetch\./);
  });
});
