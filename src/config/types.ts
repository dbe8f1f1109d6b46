import type { HttpLimits } from './http-limits.js';
/**
 * The validated, normalised configuration the application runs on. Prices are exact integers
 * (nano-USD per 1M units) from here on; the YAML's USD numbers never reach the rest of the code.
 */

/** Wire protocols, and those that serve text, as `core/protocol-descriptor.ts` describes them. */
export { textProviderApis, type ProviderApi, type TextProviderApi } from '../core/protocol-descriptor.js';
import type { ProviderApi } from '../core/protocol-descriptor.js';
import type { ProviderConnectionLimits } from '../core/provider-connection-limits.js';
import type { OidcProviderConfig } from './oidc-provider-config.js';

export interface ProviderTimeouts {
  /** TCP + TLS connect. */
  connectMs: number;
  /** From sending the request to the response headers (and, for streams, the first event). */
  firstByteMs: number;
  /** Longest silence allowed between two chunks of a streaming body. */
  idleMs: number;
}

/**
 * How a provider authenticates, by kind rather than by a bare key string, so that a transport
 * must say what it does with each kind (a switch over `kind` that misses one does not compile):
 * - `none`: nothing sent (a local vLLM or Ollama, or a provider whose key variable is unset);
 * - `api-key-header`: the key in a header of the vendor's naming (`x-api-key` for Anthropic,
 *   `x-goog-api-key` for Gemini, `api-key` for Azure OpenAI), after `scheme` when there is one
 *   (fal.ai: `authorization: Key …`);
 * - `bearer`: `authorization: Bearer <token>` (OpenAI and the OpenAI-compatible servers);
 * - `google-service-account`: a Google service account key (Vertex AI), exchanged for short-lived
 *   OAuth tokens sent as bearer tokens (the provider layer's `shared/google-access-token.ts`);
 * - `aws-sigv4`: AWS access keys (Bedrock), with which each request is signed (Signature Version
 *   4) once it is final, in the provider layer's `shared/send-request.ts`; the object is itself
 *   the `AwsCredentials` of its `aws/sign-request.ts`. A Bedrock API key is a `bearer`.
 */
export type ProviderAuth =
  | { kind: 'none' }
  | { kind: 'api-key-header'; header: string; key: string; scheme?: string }
  | { kind: 'bearer'; token: string }
  | {
      kind: 'google-service-account';
      /** For error messages: which provider's credential failed. */
      providerId: string;
      clientEmail: string;
      privateKey: string;
      privateKeyId?: string;
      /** Where the signed assertion is exchanged for an access token (the key file's `token_uri`). */
      tokenUri: string;
    }
  | {
      kind: 'aws-sigv4';
      accessKeyId: string;
      secretAccessKey: string;
      /** Temporary credentials' (STS) token, sent as `x-amz-security-token`. */
      sessionToken?: string;
      region: string;
      /** The signing name: `bedrock` for the Bedrock runtime. */
      service: string;
    };

/**
 * The cloud that hosts a protocol, when it is not the vendor's own API: the same wire with another
 * URL shape and authentication. Azure OpenAI speaks `openai`: its v1 API
 * (`https://{resource}.openai.azure.com/openai/v1`) is OpenAI's paths under that base; with
 * `apiVersion`, the deployment API (`{base}/deployments/{deployment}/chat/completions?api-version=`,
 * base `https://{resource}.openai.azure.com/openai`), the endpoint's `model` naming the deployment.
 * Both take the key in an `api-key` header.
 */
export type ProviderPlatform =
  | { kind: 'azure'; apiVersion?: string }
  /**
   * Google Vertex AI, hosting `gemini` (publisher google) and `anthropic` (publisher anthropic):
   * the model's method under `{base_url}/v1/projects/{project}/locations/{location}/publishers/…`;
   * base_url `https://aiplatform.googleapis.com` (location `global`) or `https://{region}-aiplatform.googleapis.com`.
   */
  | { kind: 'vertex'; project: string; location: string }
  /**
   * AWS Bedrock, hosting `anthropic` (Claude through InvokeModel, Anthropic's body with
   * `anthropic_version: "bedrock-2023-05-31"`): `{base_url}/model/{modelId}/invoke` and
   * `/invoke-with-response-stream`; base_url `https://bedrock-runtime.{region}.amazonaws.com`.
   */
  | { kind: 'bedrock'; region: string };

export interface ProviderConfig {
  id: string;
  name: string;
  api: ProviderApi;
  /** Follows the vendor SDK's convention: openai and gemini include the version, anthropic not. */
  baseUrl: string;
  /** How each upstream request proves who sends it (the provider layer's `shared/auth-headers.ts`). */
  auth: ProviderAuth;
  /** Absent: the vendor's own API. */
  platform?: ProviderPlatform;
  /** The environment variable `api_key` names in the config file, to tell the operator what to set. */
  apiKeyVariable?: string;
  /** False when the provider has no API key configured: its endpoints are listed but not routed. */
  enabled: boolean;
  /** Extra headers sent on every upstream request (e.g. OpenRouter's HTTP-Referer). */
  headers: Record<string, string>;
  /**
   * Whether Messages (anthropic) or Chat Completions (openai) requests may be relayed natively
   * (`generation/plan-pass-through.ts`). Off for an OpenAI-compatible server whose answers need
   * the translation's normalizing (content arrays, reasoning fields of its own).
   */
  passThrough?: boolean;
  timeouts: ProviderTimeouts;
  /** Absent: `defaultConnectionLimits` (256 connections, 256 waiting, 5 s). */
  connections?: ProviderConnectionLimits;
}

/** Prices in nano-USD per 1M units (tokens, characters) or per single unit (image, second, request). */
export interface EndpointPricing {
  /** Per 1M input tokens. */
  prompt: bigint;
  /** Per 1M output tokens (reasoning tokens included unless `reasoning` is set). */
  completion: bigint;
  /** Per 1M input tokens read from the prompt cache; defaults to `prompt`. */
  cachedPrompt?: bigint;
  /** Per 1M input tokens written to the prompt cache; defaults to `prompt`. */
  cacheWrite?: bigint;
  /** Per 1M reasoning tokens, when the provider prices them apart from completion. */
  reasoning?: bigint;
  /** Per request, in nano-USD. */
  request?: bigint;
  /** Per input image (text models) or per generated image (image models), in nano-USD. */
  image?: bigint;
  /** Per second of generated video, in nano-USD. */
  videoSecond?: bigint;
  /** Per 1M input characters (speech). */
  characters?: bigint;
  /** Per search (rerank: one query over up to the provider's documents per search unit), in nano-USD. */
  search?: bigint;
  /**
   * A batch line sent through the provider's batch API costs the list price times this ratio,
   * in parts per million (0.5 → 500_000n): exact, never a float.
   */
  batchDiscountPpm?: bigint;
}

export type OutputModality = 'text' | 'image' | 'audio' | 'video' | 'embeddings' | 'rerank' | 'moderation';
export type InputModality = 'text' | 'image' | 'audio' | 'video' | 'file';
export type ApiEndpoint = 'chat' | 'responses' | 'messages' | 'speech' | 'images' | 'videos' | 'embeddings' | 'rerank' | 'moderations';

export interface ModelEndpointConfig {
  provider: string;
  /** The provider's own model name. */
  model: string;
  pricing: EndpointPricing;
  supportedParameters: string[];
  streaming: boolean;
  maxCompletionTokens: number | null;
  /** Overrides the model's context length for this endpoint. */
  contextLength: number | null;
}

export interface ModelConfig {
  /** `{developer}/{model}`; free models conventionally end in `:free`. */
  id: string;
  name: string;
  description: string;
  /** Unix seconds, OpenRouter's `created`. */
  created: number;
  /** YYYY-MM-DD after which the model may be removed (OpenRouter's `expiration_date`); null if none announced. */
  expirationDate: string | null;
  free: boolean;
  contextLength: number | null;
  inputModalities: InputModality[];
  outputModalities: OutputModality[];
  tokenizer: string;
  endpoints: ModelEndpointConfig[];
  /** Media capabilities, for image, speech and video models. */
  voices: string[];
  sizes: string[];
  durations: number[];
  resolutions: string[];
  aspectRatios: string[];
  /** Image models: the accepted `quality` values; none accepted when empty or absent. */
  qualities?: string[];
  /** Image models: the largest `n` per request (default 10). */
  maxImages?: number;
  /** Embedding models: the vector's size and what `dimensions` may ask for. */
  embedding?: EmbeddingModelConfig;
}

export interface EmbeddingModelConfig {
  /** The size of the vectors the model answers when `dimensions` is not given. */
  dimensions: number;
  /**
   * The `dimensions` a request may ask for: `'any'` (any size from 1 to `dimensions`, for models
   * trained to be shortened: OpenAI's text-embedding-3, Gemini's), a list of sizes, or empty
   * (only the native size).
   */
  outputDimensions: 'any' | number[];
  /** The most tokens one input may have; null when the catalog does not say. */
  maxInputTokens: number | null;
}

export interface LimitsConfig {
  freeDailyRequests: number;
  /** Per key, paid models; 0 means unlimited. */
  requestsPerMinute: number;
}

export interface ServerConfig {
  host: string;
  port: number;
  databaseUrl: string;
  redisUrl: string | null;
  adminToken: string | null;
  /** The page's public origin (SWITCHYARD_PUBLIC_URL) for links the gateway hands out; null when unset. */
  publicUrl?: string | null;
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  /**
   * After SIGTERM, how long `/ready` answers 503 while requests are still served, so that a load
   * balancer stops sending new ones before the listener closes.
   */
  shutdownDrainMs: number;
  /** After the listener closes, how long in-flight requests and streams may take to finish. */
  shutdownGraceMs: number;
  /**
   * Requests `serve` runs through a private copy of the application before it listens, so that
   * the first real ones meet optimised code (`cli/warm-up.ts`); 0 turns the warm-up off.
   */
  warmUpRequests: number;
  logLevel: string;
  /** Connection timeouts and upload/stream caps; `http/http-limits.ts` defaults when absent. */
  http?: Partial<HttpLimits>;
  /** The Telegram bot that links messenger accounts; null (or absent) when TELEGRAM_BOT_TOKEN is unset. */
  telegram?: TelegramConfig | null;
  /** Browser origins allowed by CORS (`*` for any); empty or absent: no CORS headers. */
  corsOrigins?: string[];
  /**
   * The native pass-through for Messages → anthropic and Chat Completions → openai endpoints
   * (`SWITCHYARD_PASS_THROUGH`, default on); false translates every request.
   */
  passThrough?: boolean;
  /** Stored Responses (`store: true`); `api/responses/response-storage-settings.ts` defaults when absent. */
  responses?: ResponseStorageConfig;
  /** Files and batches (`/v1/files`, `/v1/batches`); `batches/batch-settings.ts` defaults when absent. */
  batches?: BatchConfig;
}

/** Where uploaded files live and how batches run. */
export interface BatchConfig {
  /** `SWITCHYARD_FILES_DIR`: the directory of uploaded and generated files; null: `files/` beside the SQLite database, else `./data/files`. */
  filesDir: string | null;
  /** `SWITCHYARD_FILES_MAX_BYTES`: largest upload; default 200 MiB (OpenAI's batch input limit). */
  maxFileBytes: number;
  /** `SWITCHYARD_BATCH_LINES_IN_FLIGHT`: lines of one batch running at once; default 4. */
  linesInFlight: number;
  /**
   * `SWITCHYARD_BATCH_LINES_PER_PROVIDER`: engine lines of all batches of an instance running on
   * one provider at once; default 8, never more than half the provider's `connections.max`.
   */
  linesPerProvider?: number;
  /**
   * An S3-compatible bucket for the files instead of local disk: the `files.s3` section of the
   * config file or the `SWITCHYARD_FILES_S3_*` variables (one of the two). Null or absent: local disk.
   */
  s3?: S3FileStorageConfig | null;
}

/** Where files live when they live in an S3-compatible bucket (`config/normalize-file-storage.ts`). */
export interface S3FileStorageConfig {
  bucket: string;
  /** The bucket's region (SigV4 signs for it); `us-east-1` by default when `endpoint` is given. */
  region: string;
  /** An S3-compatible service's URL (MinIO, R2, …); null: AWS S3 itself. */
  endpoint: string | null;
  /** Prepended to every key: empty, or ending in `/` (`switchyard/files/`). */
  prefix: string;
  /** Bucket in the path (`endpoint/bucket/key`) rather than the host name; most self-hosted services need it. */
  forcePathStyle: boolean;
  /** Access keys; null: the AWS SDK's default chain (environment, shared config files, instance or task role). */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | null;
}

/** How long stored Responses are kept, and how large one may be. */
export interface ResponseStorageConfig {
  /** `SWITCHYARD_RESPONSE_RETENTION_DAYS`, default 30. */
  retentionDays: number;
  /** `SWITCHYARD_RESPONSE_MAX_STORED_BYTES`: input items plus Response object, JSON; default 16 MiB. */
  maxStoredBytes: number;
  /** `SWITCHYARD_FREE_STORED_RESPONSES_PER_ACCOUNT`: warm-ups (`generate: false`) one account may keep stored; default 10,000. */
  maxFreeStoredPerAccount?: number;
  /** `SWITCHYARD_FREE_STORED_BYTES_PER_ACCOUNT`: their bytes, all together; default 256 MiB. */
  maxFreeStoredBytesPerAccount?: number;
}

export interface TelegramConfig {
  /** Secret: appears only in Bot API URLs, never in logs. */
  botToken: string;
  /** Telegram sends it back in `X-Telegram-Bot-Api-Secret-Token` on every webhook call. */
  webhookSecret: string;
  /** Without a trailing slash; requests go to `{apiBaseUrl}/bot{token}/{method}`. */
  apiBaseUrl: string;
  /** Without the `@`; null when unset (link codes then carry no t.me deep link). */
  botUsername: string | null;
}

export interface Config {
  server: ServerConfig;
  /** Where the catalog came from: a file path, or "built-in". */
  source: string;
  limits: LimitsConfig;
  providers: ProviderConfig[];
  models: ModelConfig[];
  /** Speech and image settings; defaults apply when absent (see `media/media-settings.ts`). */
  media?: MediaConfig;
  /** Hosted tools the gateway runs itself (contract §4a); each absent one is unavailable. */
  hostedTools?: HostedToolsConfig;
  /** Per task kind (`video`, `image`): schedule overrides for the task engine; engine defaults when absent. */
  tasks?: Record<string, TaskScheduleConfig>;
  /** Top-ups through a payment provider (contract §7); absent: no checkout, no webhook route. */
  payments?: PaymentsConfig;
  /** Sign-in methods of the page (contract §7); absent or empty: none is on. */
  auth?: AuthConfig;
  /** Who may sign up; absent: `closed`, no bonus. */
  signup?: SignupConfig;
  /** Alerts (contract §8); absent: the defaults of `AlertsConfig`. */
  alerts?: AlertsConfig;
  /** The response cache (contract §9); absent or `enabled: false`: no request is cached. */
  cache?: CacheConfig;
}

/** The `cache:` section (docs/configuration.md). */
export interface CacheConfig {
  enabled: boolean;
  /** An entry's lifetime when the request names none (`x-switchyard-cache-ttl`). Default 300 s. */
  defaultTtlSeconds: number;
  /** The longest lifetime a request may ask for; more is refused with a 400. Default 86,400 s. */
  maxTtlSeconds: number;
  /** Answers larger than this (their stored JSON) are not stored. Default 1 MiB. */
  maxEntryBytes: number;
  /** A hit is charged this share of the stored answer's cost (0 to 1), in millionths. Default 0. */
  priceFactorMillionths: number;
}

/** The `alerts:` section. */
export interface AlertsConfig {
  /** Webhook URLs may be http and reach private, loopback and link-local addresses (on-premises receivers, tests). Default false. */
  allowPrivateUrls: boolean;
  /** How often each instance looks for crossings (low balance, key limits). Default 5,000 ms. */
  checkMs: number;
}

/** The `payments:` section; amounts are nano-USD. */
export interface PaymentsConfig {
  stripe?: StripeConfig;
}

export interface StripeConfig {
  /** Secret: never logged. */
  secretKey: string;
  webhookSecret: string;
  /** Where the SDK sends its requests; absent: Stripe's own API. */
  apiBase?: string;
  currency: 'usd';
  /** The amount buttons the page offers. */
  amounts: bigint[];
  min: bigint;
  max: bigint;
  /** A percentage in nano-percent (2.9 % is 2_900_000_000n), exact. */
  feePercentNano: bigint;
  feeFixed: bigint;
  /** How often each instance looks for accounts below their auto top-up threshold. */
  autoTopUpCheckMs: number;
}

/** The `auth:` section (contract §7). */
export interface AuthConfig {
  /** As written in the file (`client_secret` is a secret, never logged); the OIDC client takes these. */
  oidc: OidcProviderConfig[];
  /** Telegram Login Widget sign-in; needs TELEGRAM_BOT_TOKEN, whose bot signs the widget's data. */
  telegram: { login: boolean };
  /** Magic links by mail; null when off. `smtpUrl` is a secret (it may carry a password). */
  email: { smtpUrl: string; from: string } | null;
}

export type SignupMode = 'closed' | 'open' | 'invite';

/** The `signup:` section (contract §7). */
export interface SignupConfig {
  mode: SignupMode;
  /** Nano-USD granted to the account a new user gets, once per verified identity. */
  bonusCredits: bigint;
  /** Lower-case domains an email-identified sign-up must be in; empty: any. */
  allowedEmailDomains: string[];
}

/** One kind under the `tasks:` section of the config file, in milliseconds. */
export interface TaskScheduleConfig {
  maxAgeMs?: number;
  minPollMs?: number;
  maxPollMs?: number;
}

/** The `media:` section of the config file. */
export interface MediaConfig {
  /** How long an image request waits for an asynchronous provider job (fal) before it answers 202. */
  syncWindowMs: number;
  /** Pause between two status polls of a provider job while the request waits. */
  pollIntervalMs: number;
  /** Remote image inputs (`image_url`): largest accepted file, in bytes. */
  fetchMaxBytes: number;
  /** Remote image inputs: time allowed for the whole fetch, redirects included. */
  fetchTimeoutMs: number;
  /** How long gateway-served image URLs (`response_format: "url"`) stay downloadable. */
  fileTtlSeconds: number;
}

export type WebSearchBackend = 'searxng' | 'brave' | 'tavily' | 'exa';

/** The `hosted_tools:` section of the config file (contract §4a). */
export interface HostedToolsConfig {
  webSearch?: {
    backend: WebSearchBackend;
    /** Without a trailing slash: the SearXNG instance, or the backend's API (its public one by default). */
    baseUrl: string;
    /** Empty where the backend needs none (SearXNG). Secret: never logged. */
    apiKey: string;
    /** Charged per search the gateway runs (nano-USD). */
    pricePerSearch: bigint;
    maxResults: number;
    /** Searches one request may run, unless the client asks for fewer (Messages `max_uses`). */
    maxUses: number;
    /** Time one search may take before the model is told it failed. */
    timeoutMs: number;
  };
  webFetch?: { maxBytes: number };
  /** A catalog image model, charged at its own price. */
  imageGeneration?: { model: string };
}
