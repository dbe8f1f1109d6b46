import { usdToNano } from '../core/money.js';
import type { ConfigFile, EndpointEntry, ModelEntry, ProviderEntry } from './config-schema.js';
import { ConfigError } from './config-error.js';
import { defaultMediaConfig } from './default-media-config.js';
import { defaultConnectionLimits } from '../core/provider-connection-limits.js';
import { defaultTextParameters, isTextProviderApi } from '../core/protocol-descriptor.js';
import { textProviderApis, type AuthConfig, type CacheConfig, type Config, type HostedToolsConfig, type WebSearchBackend, type EndpointPricing, type ModelConfig, type ProviderConfig, type ProviderPlatform, type ServerConfig, type TaskScheduleConfig } from './types.js';
import { resolveProviderAuth } from './resolve-provider-auth.js';
import { normalizePayments } from './normalize-payments.js';
import { defaultBatchConfig } from './default-batch-config.js';
import { normalizeS3Storage, s3StorageVariables } from './normalize-file-storage.js';

export const canonicalParameters = new Set([
  'max_tokens', 'temperature', 'top_p', 'top_k', 'frequency_penalty', 'presence_penalty', 'seed', 'stop',
  'tools', 'tool_choice', 'parallel_tool_calls', 'response_format', 'reasoning', 'user', 'web_search',
]);

const defaultTimeouts = { connectMs: 10_000, firstByteMs: 120_000, idleMs: 60_000 };

/**
 * Turns a schema-valid config file into the typed config: USD numbers become exact nano-USD
 * integers, references are checked, defaults are filled. Errors name the file and field path.
 */
export function normalizeConfig(file: ConfigFile, source: string, server: ServerConfig): Config {
  const fail = (path: string, expected: string): never => {
    throw new ConfigError(`${source}: ${path}: ${expected}`);
  };
  const providers = file.providers.map((entry, index) => normalizeProvider(entry, `providers[${index}]`, fail));
  const apiOf = new Map(providers.map((provider) => [provider.id, provider.api]));
  const providerIds = new Set<string>();
  providers.forEach((provider, index) => {
    if (providerIds.has(provider.id)) fail(`providers[${index}].id`, `expected a unique provider id, "${provider.id}" appears twice`);
    providerIds.add(provider.id);
  });
  const modelIds = new Set<string>();
  const models = file.models.map((entry, index) => {
    const path = `models[${index}]`;
    if (modelIds.has(entry.id)) fail(`${path}.id`, `expected a unique model id, "${entry.id}" appears twice`);
    modelIds.add(entry.id);
    const model = normalizeModel(entry, path, apiOf, fail);
    model.endpoints.forEach((endpoint, index) => {
      if (model.outputModalities.includes('text') && !isTextProviderApi(apiOf.get(endpoint.provider)!)) {
        fail(`${path}.endpoints[${index}].provider`, `expected a provider whose api serves text (${textProviderApis.join(', ')}), "${endpoint.provider}" speaks ${apiOf.get(endpoint.provider)}`);
      }
    });
    return model;
  });
  return {
    server: withFileStorage(file.files, server, fail),
    source,
    limits: {
      freeDailyRequests: file.limits?.free_daily_requests ?? 50,
      requestsPerMinute: file.limits?.requests_per_minute ?? 600,
    },
    providers,
    models,
    tasks: normalizeTaskSchedules(file.tasks),
    hostedTools: normalizeHostedTools(file.hosted_tools, models, fail),
    ...(file.payments && { payments: normalizePayments(file.payments, fail) }),
    auth: normalizeAuth(file.auth, server, fail),
    ...(file.cache && { cache: normalizeCache(file.cache, fail) }),
    alerts: { allowPrivateUrls: file.alerts?.allow_private_urls ?? false, checkMs: file.alerts?.check_ms ?? 5_000 },
    signup: {
      mode: file.signup?.mode ?? 'closed',
      bonusCredits: usdToNano(file.signup?.bonus_credits ?? 0),
      allowedEmailDomains: (file.signup?.allowed_email_domains ?? []).map((domain) => domain.toLowerCase()),
    },
    media: {
      syncWindowMs: file.media?.sync_window_ms ?? defaultMediaConfig.syncWindowMs,
      pollIntervalMs: file.media?.poll_interval_ms ?? defaultMediaConfig.pollIntervalMs,
      fetchMaxBytes: file.media?.fetch_max_bytes ?? defaultMediaConfig.fetchMaxBytes,
      fetchTimeoutMs: file.media?.fetch_timeout_ms ?? defaultMediaConfig.fetchTimeoutMs,
      fileTtlSeconds: file.media?.file_ttl_seconds ?? defaultMediaConfig.fileTtlSeconds,
    },
  };
}

function normalizeProvider(entry: ProviderEntry, path: string, fail: (path: string, expected: string) => never): ProviderConfig {
  const platform = normalizePlatform(entry, path, fail);
  // A cloud credential stands in for api_key: unset in the environment, the provider is off.
  const secret = providerSecret(entry);
  return {
    id: entry.id,
    name: entry.name,
    api: entry.api,
    baseUrl: entry.base_url.replace(/\/+$/, ''),
    auth: resolveProviderAuth(entry, platform, path, fail),
    ...(platform && { platform }),
    // A provider written without `api_key` (a local vLLM, say) is on; one whose key variable is unset is off.
    enabled: entry.enabled ?? (secret === undefined || secret !== ''),
    headers: entry.headers ?? {},
    passThrough: entry.pass_through ?? true,
    timeouts: {
      connectMs: entry.timeouts?.connect_ms ?? defaultTimeouts.connectMs,
      firstByteMs: entry.timeouts?.first_byte_ms ?? defaultTimeouts.firstByteMs,
      idleMs: entry.timeouts?.idle_ms ?? defaultTimeouts.idleMs,
    },
    connections: {
      max: entry.connections?.max ?? defaultConnectionLimits.max,
      queue: entry.connections?.queue ?? defaultConnectionLimits.queue,
      queueTimeoutMs: entry.connections?.queue_timeout_ms ?? defaultConnectionLimits.queueTimeoutMs,
    },
  };
}

/** The credential that switches a provider on: a Vertex service account or AWS access key when given, else `api_key`. */
function providerSecret(entry: ProviderEntry): string | undefined {
  const platform = entry.platform;
  if (platform?.kind === 'vertex' && platform.service_account !== undefined) return platform.service_account;
  if (platform?.kind === 'bedrock' && platform.access_key_id !== undefined) return platform.access_key_id;
  return entry.api_key;
}

function normalizePlatform(entry: ProviderEntry, path: string, fail: (path: string, expected: string) => never): ProviderPlatform | undefined {
  const platform = entry.platform;
  if (platform === undefined) return undefined;
  if (platform.kind === 'azure') {
    if (entry.api !== 'openai') fail(`${path}.platform.kind`, `azure serves the openai protocol: expected api: openai, got "${entry.api}"`);
    return { kind: 'azure', ...(platform.api_version !== undefined && { apiVersion: platform.api_version }) };
  }
  if (platform.kind === 'bedrock') {
    if (!(bedrockApis as readonly string[]).includes(entry.api)) fail(`${path}.platform.kind`, `bedrock serves Claude through InvokeModel (api: anthropic) and every text model through Converse (api: bedrock): expected one of them, got "${entry.api}"`);
    return { kind: 'bedrock', region: platform.region };
  }
  if (entry.api !== 'gemini' && entry.api !== 'anthropic') fail(`${path}.platform.kind`, `vertex serves the gemini and anthropic protocols: expected api: gemini or anthropic, got "${entry.api}"`);
  return { kind: 'vertex', project: platform.project, location: platform.location };
}

/** The protocols Bedrock hosts: Anthropic's Messages body through InvokeModel, and Bedrock's own Converse. */
const bedrockApis = ['anthropic', 'bedrock'] as const;

function normalizeModel(
  entry: ModelEntry,
  path: string,
  apiOf: ReadonlyMap<string, string>,
  fail: (path: string, expected: string) => never,
): ModelConfig {
  const outputs = entry.modalities.output;
  const isText = outputs.includes('text');
  const free = entry.free ?? false;
  if (isText && !entry.context_length) fail(`${path}.context_length`, 'expected a positive integer for a text model');
  const endpoints = entry.endpoints.map((endpoint, index) => {
    const endpointPath = `${path}.endpoints[${index}]`;
    const api = apiOf.get(endpoint.provider);
    if (api === undefined) fail(`${endpointPath}.provider`, `expected one of the configured providers (${[...apiOf.keys()].join(', ')}), got "${endpoint.provider}"`);
    (endpoint.supported_parameters ?? []).forEach((name, parameterIndex) => {
      if (!canonicalParameters.has(name)) {
        fail(`${endpointPath}.supported_parameters[${parameterIndex}]`, `expected one of ${[...canonicalParameters].join(', ')}, got "${name}"`);
      }
    });
    const pricing = normalizePricing(endpoint, `${endpointPath}.pricing`, fail);
    if (free && Object.entries(pricing).some(([field, price]) => field !== 'batchDiscountPpm' && price !== undefined && price !== 0n)) {
      fail(`${endpointPath}.pricing`, 'expected all prices to be 0 for a free model');
    }
    if (isText && (endpoint.pricing.prompt === undefined || endpoint.pricing.completion === undefined)) {
      fail(`${endpointPath}.pricing`, 'expected prompt and completion prices for a text model');
    }
    return {
      provider: endpoint.provider,
      model: endpoint.model,
      pricing,
      // A text endpoint that lists none takes its protocol's sampling and length parameters.
      supportedParameters: endpoint.supported_parameters ?? (isText && api !== undefined && isTextProviderApi(api) ? [...defaultTextParameters[api]] : []),
      streaming: endpoint.streaming ?? isText,
      maxCompletionTokens: endpoint.max_completion_tokens ?? null,
      contextLength: endpoint.context_length ?? null,
    };
  });
  return {
    id: entry.id,
    name: entry.name,
    description: entry.description ?? '',
    created: entry.created ?? 0,
    expirationDate: entry.expiration_date ?? null,
    free,
    contextLength: entry.context_length ?? null,
    inputModalities: entry.modalities.input,
    outputModalities: outputs,
    tokenizer: entry.tokenizer ?? 'Other',
    endpoints,
    voices: entry.voices ?? [],
    sizes: entry.sizes ?? [],
    durations: entry.durations ?? [],
    resolutions: entry.resolutions ?? [],
    aspectRatios: entry.aspect_ratios ?? [],
    qualities: entry.qualities ?? [],
    maxImages: entry.max_images ?? defaultMediaConfig.maxImages,
    ...(entry.embedding && {
      embedding: {
        dimensions: entry.embedding.dimensions,
        outputDimensions: entry.embedding.output_dimensions ?? [],
        maxInputTokens: entry.embedding.max_input_tokens ?? null,
      },
    }),
  };
}

const pricingKeys = {
  prompt: 'prompt',
  completion: 'completion',
  cached_prompt: 'cachedPrompt',
  cache_write: 'cacheWrite',
  reasoning: 'reasoning',
  request: 'request',
  image: 'image',
  video_second: 'videoSecond',
  characters: 'characters',
  search: 'search',
} as const;

function normalizePricing(endpoint: EndpointEntry, path: string, fail: (path: string, expected: string) => never): EndpointPricing {
  const pricing: EndpointPricing = { prompt: 0n, completion: 0n };
  for (const [key, field] of Object.entries(pricingKeys) as [keyof typeof pricingKeys, (typeof pricingKeys)[keyof typeof pricingKeys]][]) {
    const value = endpoint.pricing[key];
    if (value === undefined) continue;
    try {
      pricing[field] = usdToNano(value);
    } catch {
      fail(`${path}.${key}`, `expected a USD amount with at most 9 decimal places, got ${String(value)}`);
    }
  }
  const discount = endpoint.pricing.batch_discount;
  if (discount !== undefined) pricing.batchDiscountPpm = discountToPpm(discount, `${path}.batch_discount`, fail);
  return pricing;
}

/** `0.5` or `"0.5"` → 500_000n parts per million: read as a decimal, never through a float's arithmetic. */
function discountToPpm(value: number | string, path: string, fail: (path: string, expected: string) => never): bigint {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  const fraction = match?.[2] ?? '';
  if (!match || (fraction.length > 6 && /[1-9]/.test(fraction.slice(6)))) fail(path, `expected a ratio 0 < d ≤ 1 with at most 6 decimal places, got ${String(value)}`);
  const ppm = BigInt(match![1]) * 1_000_000n + BigInt(fraction.slice(0, 6).padEnd(6, '0'));
  if (ppm <= 0n || ppm > 1_000_000n) fail(path, `expected a ratio 0 < d ≤ 1, got ${String(value)}`);
  return ppm;
}

function normalizeTaskSchedules(tasks: ConfigFile['tasks']): Record<string, TaskScheduleConfig> {
  const schedules: Record<string, TaskScheduleConfig> = {};
  for (const [kind, entry] of Object.entries(tasks ?? {})) {
    if (!entry) continue;
    const schedule: TaskScheduleConfig = {};
    if (entry.max_age_seconds !== undefined) schedule.maxAgeMs = entry.max_age_seconds * 1000;
    if (entry.min_poll_seconds !== undefined) schedule.minPollMs = Math.round(entry.min_poll_seconds * 1000);
    if (entry.max_poll_seconds !== undefined) schedule.maxPollMs = Math.round(entry.max_poll_seconds * 1000);
    schedules[kind] = schedule;
  }
  return schedules;
}

/** Each backend's public API, used when `base_url` is not set (SearXNG has none: it is self-hosted). */
const defaultSearchBaseUrls: Record<WebSearchBackend, string | undefined> = {
  searxng: undefined,
  brave: 'https://api.search.brave.com/res/v1',
  tavily: 'https://api.tavily.com',
  exa: 'https://api.exa.ai',
};

function normalizeHostedTools(
  entry: ConfigFile['hosted_tools'],
  models: ModelConfig[],
  fail: (path: string, expected: string) => never,
): HostedToolsConfig {
  const tools: HostedToolsConfig = {};
  const search = entry?.web_search;
  if (search) {
    const baseUrl = search.base_url ?? defaultSearchBaseUrls[search.backend];
    if (baseUrl === undefined) fail('hosted_tools.web_search.base_url', `expected the URL of the ${search.backend} instance`);
    const apiKey = search.api_key ?? '';
    if (search.backend !== 'searxng' && apiKey === '') {
      fail('hosted_tools.web_search.api_key', `expected the ${search.backend} API key (an unset \${VAR} counts as empty)`);
    }
    let pricePerSearch = 0n;
    try {
      pricePerSearch = usdToNano(search.price_per_search ?? 0);
    } catch {
      fail('hosted_tools.web_search.price_per_search', `expected a USD amount with at most 9 decimal places, got ${String(search.price_per_search)}`);
    }
    tools.webSearch = {
      backend: search.backend,
      baseUrl: baseUrl!.replace(/\/+$/, ''),
      apiKey,
      pricePerSearch,
      maxResults: search.max_results ?? 5,
      maxUses: search.max_uses ?? 5,
      timeoutMs: search.timeout_ms ?? 10_000,
    };
  }
  const fetch = entry?.web_fetch;
  if (fetch && (fetch.enabled ?? true)) tools.webFetch = { maxBytes: fetch.max_bytes ?? 200_000 };
  const image = entry?.image_generation;
  if (image) {
    const model = models.find((candidate) => candidate.id === image.model);
    if (!model || !model.outputModalities.includes('image')) {
      fail('hosted_tools.image_generation.model', `expected the id of a configured image model, got "${image.model}"`);
    }
    tools.imageGeneration = { model: image.model };
  }
  return tools;
}

function normalizeAuth(auth: ConfigFile['auth'], server: ServerConfig, fail: (path: string, expected: string) => never): AuthConfig {
  const oidc = [...(auth?.oidc ?? [])];
  const ids = new Set<string>();
  oidc.forEach((provider, index) => {
    if (ids.has(provider.id)) fail(`auth.oidc[${index}].id`, `expected a unique provider id, "${provider.id}" appears twice`);
    ids.add(provider.id);
  });
  const login = auth?.telegram?.login ?? false;
  // The widget's data is signed with the bot's token: without one no hash could be checked.
  if (login && !server.telegram) fail('auth.telegram.login', 'expected TELEGRAM_BOT_TOKEN to be set (the Login Widget is signed with the bot token)');
  // Links handed out must name the page's origin, never a caller-chosen Host header.
  if ((oidc.length > 0 || auth?.email) && !server.publicUrl) fail('auth', 'expected SWITCHYARD_PUBLIC_URL to be set (sign-in links and redirect URIs are built on it)');
  return { oidc, telegram: { login }, email: auth?.email ? { smtpUrl: auth.email.smtp_url, from: auth.email.from } : null };
}

/** The config file's `files.s3` goes where the `SWITCHYARD_FILES_S3_*` variables put theirs; both, or it with `SWITCHYARD_FILES_DIR`, is refused. */
function withFileStorage(files: ConfigFile['files'], server: ServerConfig, fail: (path: string, expected: string) => never): ServerConfig {
  if (!files?.s3) return server;
  if (server.batches?.s3) fail('files.s3', `expected S3 storage in one place: the ${s3StorageVariables.bucket} variables configure it too`);
  if (server.batches?.filesDir) fail('files.s3', 'expected either S3 storage or SWITCHYARD_FILES_DIR (local disk), not both');
  const s3 = normalizeS3Storage(files.s3, (field, expected) => fail(`files.s3.${field}`, expected));
  return { ...server, batches: { filesDir: null, ...defaultBatchConfig, ...server.batches, s3 } };
}

function normalizeCache(cache: NonNullable<ConfigFile['cache']>, fail: (path: string, expected: string) => never): CacheConfig {
  const defaultTtlSeconds = cache.default_ttl_s ?? 300;
  const maxTtlSeconds = cache.max_ttl_s ?? 86_400;
  if (defaultTtlSeconds > maxTtlSeconds) fail('cache.default_ttl_s', `at most cache.max_ttl_s (${maxTtlSeconds})`);
  return {
    enabled: cache.enabled ?? true,
    defaultTtlSeconds,
    maxTtlSeconds,
    maxEntryBytes: cache.max_entry_bytes ?? 1024 * 1024,
    priceFactorMillionths: Math.round((cache.price_factor ?? 0) * 1_000_000),
  };
}
