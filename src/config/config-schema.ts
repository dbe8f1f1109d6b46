import { OidcProviderConfigSchema } from './oidc-provider-config.js';
import { providerApis } from '../core/protocol-descriptor.js';
import { Type, type Static } from '@sinclair/typebox';

/**
 * The YAML config file (docs/api-decisions.md §1), as written by operators. Unknown keys are refused so that
 * a typo never silently turns a setting off.
 */
const Price = Type.Union([Type.Number({ minimum: 0 }), Type.String({ pattern: '^\\d+(\\.\\d+)?$' })], {
  description: 'a non-negative USD amount',
});

const PricingSchema = Type.Object(
  {
    prompt: Type.Optional(Price),
    completion: Type.Optional(Price),
    cached_prompt: Type.Optional(Price),
    cache_write: Type.Optional(Price),
    reasoning: Type.Optional(Price),
    request: Type.Optional(Price),
    image: Type.Optional(Price),
    video_second: Type.Optional(Price),
    characters: Type.Optional(Price),
    search: Type.Optional(Price),
    batch_discount: Type.Optional(
      Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 1 }), Type.String({ pattern: '^(0(\\.\\d+)?|1(\\.0+)?)$' })], {
        description: 'the ratio of the list price a line sent through the provider batch API costs, 0 < d ≤ 1',
      }),
    ),
  },
  { additionalProperties: false },
);

const Slug = Type.String({ pattern: '^[a-z0-9][a-z0-9._-]*$', description: 'a lowercase slug' });
const PositiveInteger = Type.Integer({ minimum: 1 });

const EndpointSchema = Type.Object(
  {
    provider: Type.String({ minLength: 1 }),
    model: Type.String({ minLength: 1 }),
    pricing: PricingSchema,
    supported_parameters: Type.Optional(Type.Array(Type.String())),
    streaming: Type.Optional(Type.Boolean()),
    max_completion_tokens: Type.Optional(Type.Union([PositiveInteger, Type.Null()])),
    context_length: Type.Optional(Type.Union([PositiveInteger, Type.Null()])),
  },
  { additionalProperties: false },
);

const InputModality = Type.Union(
  [Type.Literal('text'), Type.Literal('image'), Type.Literal('audio'), Type.Literal('video'), Type.Literal('file')],
  { description: 'one of text, image, audio, video, file' },
);
const OutputModality = Type.Union(
  [
    Type.Literal('text'),
    Type.Literal('image'),
    Type.Literal('audio'),
    Type.Literal('video'),
    Type.Literal('embeddings'),
    Type.Literal('rerank'),
    Type.Literal('moderation'),
  ],
  { description: 'one of text, image, audio, video, embeddings, rerank, moderation' },
);

const ModelSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._:-]*$', description: 'an id of the form developer/model' }),
    name: Type.String({ minLength: 1 }),
    description: Type.Optional(Type.String()),
    created: Type.Optional(Type.Integer({ minimum: 0 })),
    expiration_date: Type.Optional(
      Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD, the date after which the model may be removed' }),
    ),
    free: Type.Optional(Type.Boolean()),
    context_length: Type.Optional(Type.Union([PositiveInteger, Type.Null()])),
    tokenizer: Type.Optional(Type.String()),
    modalities: Type.Object(
      { input: Type.Array(InputModality, { minItems: 1 }), output: Type.Array(OutputModality, { minItems: 1 }) },
      { additionalProperties: false },
    ),
    endpoints: Type.Array(EndpointSchema, { minItems: 1 }),
    voices: Type.Optional(Type.Array(Type.String())),
    sizes: Type.Optional(Type.Array(Type.String())),
    durations: Type.Optional(Type.Array(Type.Number({ exclusiveMinimum: 0 }))),
    resolutions: Type.Optional(Type.Array(Type.String())),
    aspect_ratios: Type.Optional(Type.Array(Type.String())),
    qualities: Type.Optional(Type.Array(Type.String())),
    max_images: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    embedding: Type.Optional(
      Type.Object(
        {
          dimensions: Type.Integer({ minimum: 1, maximum: 65_536, description: 'the size of the vectors the model answers by default' }),
          output_dimensions: Type.Optional(
            Type.Union([Type.Literal('any'), Type.Array(Type.Integer({ minimum: 1, maximum: 65_536 }))], {
              description: "'any' (shortened to any size up to dimensions) or the sizes a request may ask for",
            }),
          ),
          max_input_tokens: Type.Optional(PositiveInteger),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const ProviderSchema = Type.Object(
  {
    id: Slug,
    name: Type.String({ minLength: 1 }),
    api: Type.Union(
      providerApis.map((api) => Type.Literal(api)),
      { description: `one of ${providerApis.join(', ')}` },
    ),
    base_url: Type.String({ pattern: '^https?://', description: 'an http(s) URL' }),
    api_key: Type.Optional(Type.String()),
    platform: Type.Optional(
      Type.Union(
        [
          Type.Object(
            {
              kind: Type.Literal('azure', { description: 'azure: Azure OpenAI (api: openai)' }),
              api_version: Type.Optional(Type.String({ minLength: 1, description: "the deployment API's api-version; without it, the v1 API" })),
            },
            { additionalProperties: false },
          ),
          Type.Object(
            {
              kind: Type.Literal('vertex', { description: 'vertex: Google Vertex AI (api: gemini or anthropic)' }),
              project: Type.String({ minLength: 1 }),
              location: Type.String({ minLength: 1, description: 'global, or a region such as us-east5' }),
              service_account: Type.Optional(Type.String({ description: "a service account key file's JSON, from the environment; without it, api_key (Vertex API key)" })),
            },
            { additionalProperties: false },
          ),
          Type.Object(
            {
              kind: Type.Literal('bedrock', { description: 'bedrock: AWS Bedrock (api: anthropic)' }),
              region: Type.String({ pattern: '^[a-z0-9-]+$', description: 'an AWS region such as us-east-1' }),
              access_key_id: Type.Optional(Type.String({ description: 'an AWS access key id, from the environment (SigV4); without it, api_key (a Bedrock API key)' })),
              secret_access_key: Type.Optional(Type.String({ description: 'its secret access key, from the environment' })),
              session_token: Type.Optional(Type.String({ description: 'the session token of temporary credentials, from the environment' })),
            },
            { additionalProperties: false },
          ),
        ],
        { description: '{kind: azure, api_version?} or {kind: vertex, project, location, service_account?} or {kind: bedrock, region, access_key_id?, secret_access_key?, session_token?}' },
      ),
    ),
    enabled: Type.Optional(Type.Boolean()),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    pass_through: Type.Optional(Type.Boolean({ description: 'relay same-protocol requests natively (default true)' })),
    timeouts: Type.Optional(
      Type.Object(
        { connect_ms: Type.Optional(PositiveInteger), first_byte_ms: Type.Optional(PositiveInteger), idle_ms: Type.Optional(PositiveInteger) },
        { additionalProperties: false },
      ),
    ),
    connections: Type.Optional(
      Type.Object(
        {
          max: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
          queue: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
          queue_timeout_ms: Type.Optional(PositiveInteger),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** How the task engine treats one kind of asynchronous task (see `src/tasks/README.md`). */
const TaskScheduleSchema = Type.Object(
  {
    max_age_seconds: Type.Optional(Type.Integer({ minimum: 10 })),
    min_poll_seconds: Type.Optional(Type.Number({ minimum: 0.05 })),
    max_poll_seconds: Type.Optional(Type.Number({ minimum: 0.05 })),
  },
  { additionalProperties: false },
);

/** Hosted tools the gateway runs itself for models whose provider has none (contract §4a). */
const HostedToolsSchema = Type.Object(
  {
    web_search: Type.Optional(
      Type.Object(
        {
          backend: Type.Union([Type.Literal('searxng'), Type.Literal('brave'), Type.Literal('tavily'), Type.Literal('exa')], {
            description: 'one of searxng, brave, tavily, exa',
          }),
          base_url: Type.Optional(Type.String({ pattern: '^https?://', description: 'an http(s) URL' })),
          api_key: Type.Optional(Type.String()),
          price_per_search: Type.Optional(Price),
          max_results: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, description: 'an integer from 1 to 20' })),
          max_uses: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, description: 'an integer from 1 to 20' })),
          timeout_ms: Type.Optional(Type.Integer({ minimum: 100, description: 'an integer of at least 100' })),
        },
        { additionalProperties: false },
      ),
    ),
    web_fetch: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          max_bytes: Type.Optional(Type.Integer({ minimum: 1024, description: 'an integer of at least 1024' })),
        },
        { additionalProperties: false },
      ),
    ),
    image_generation: Type.Optional(Type.Object({ model: Type.String({ minLength: 1 }) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

/** Top-ups through a payment provider (contract §7, docs/payments.md). */
const PaymentsSchema = Type.Object(
  {
    stripe: Type.Optional(
      Type.Object(
        {
          secret_key: Type.String({ description: 'the Stripe secret key (sk_…), from the environment' }),
          webhook_secret: Type.String({ description: "the webhook endpoint's signing secret (whsec_…), from the environment" }),
          api_base: Type.Optional(Type.String({ pattern: '^https?://', description: 'an http(s) URL (tests point the SDK at a local fake)' })),
          currency: Type.Optional(Type.Literal('usd', { description: 'usd: credits are USD' })),
          amounts: Type.Optional(Type.Array(Price, { minItems: 1, maxItems: 12 })),
          min: Type.Optional(Price),
          max: Type.Optional(Price),
          fee_percent: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.String({ pattern: '^\\d+(\\.\\d+)?$' })], { description: 'a percentage from 0 to 100' })),
          fee_fixed: Type.Optional(Price),
          auto_top_up_check_ms: Type.Optional(Type.Integer({ minimum: 50, description: 'an integer of at least 50 (milliseconds)' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** Sign-in methods for the page (contract §7); none is on unless written here. */
const AuthSchema = Type.Object(
  {
    oidc: Type.Optional(Type.Array(OidcProviderConfigSchema)),
    telegram: Type.Optional(Type.Object({ login: Type.Boolean() }, { additionalProperties: false })),
    email: Type.Optional(
      Type.Object(
        {
          smtp_url: Type.String({ pattern: '^smtps?://', description: 'an smtp:// or smtps:// URL' }),
          from: Type.String({ minLength: 3, description: 'the From address of sign-in mails' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** Who may sign up (contract §7). */
const SignupSchema = Type.Object(
  {
    mode: Type.Optional(Type.Union([Type.Literal('closed'), Type.Literal('open'), Type.Literal('invite')], { description: 'one of closed, open, invite' })),
    bonus_credits: Type.Optional(Price),
    allowed_email_domains: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Za-z0-9.-]+$', description: 'a domain like example.com' }))),
  },
  { additionalProperties: false },
);

/** Alerts (contract §8): the address rule for webhook URLs and how often each instance looks for crossings. */
const AlertsSchema = Type.Object(
  {
    allow_private_urls: Type.Optional(Type.Boolean()),
    check_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 3_600_000 })),
  },
  { additionalProperties: false },
);

/** The `cache:` section: the response cache (contract §9, docs/configuration.md). */
const CacheSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    default_ttl_s: Type.Optional(Type.Integer({ minimum: 1, maximum: 31_536_000 })),
    max_ttl_s: Type.Optional(Type.Integer({ minimum: 1, maximum: 31_536_000 })),
    max_entry_bytes: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 * 1024 * 1024 })),
    price_factor: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  },
  { additionalProperties: false },
);

/** The `files:` section: where uploaded and generated files live when not on local disk (docs/configuration.md). */
const FilesSchema = Type.Object(
  {
    s3: Type.Optional(
      Type.Object(
        {
          bucket: Type.String({ description: 'the name of the bucket' }),
          region: Type.Optional(Type.String()),
          endpoint: Type.Optional(Type.String()),
          prefix: Type.Optional(Type.String()),
          force_path_style: Type.Optional(Type.Boolean()),
          access_key_id: Type.Optional(Type.String()),
          secret_access_key: Type.Optional(Type.String()),
          session_token: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const ConfigFileSchema = Type.Object(
  {
    cache: Type.Optional(CacheSchema),
    files: Type.Optional(FilesSchema),
    auth: Type.Optional(AuthSchema),
    alerts: Type.Optional(AlertsSchema),
    signup: Type.Optional(SignupSchema),
    hosted_tools: Type.Optional(HostedToolsSchema),
    payments: Type.Optional(PaymentsSchema),
    limits: Type.Optional(
      Type.Object(
        {
          free_daily_requests: Type.Optional(Type.Integer({ minimum: 0 })),
          requests_per_minute: Type.Optional(Type.Integer({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
    providers: Type.Array(ProviderSchema),
    models: Type.Array(ModelSchema),
    tasks: Type.Optional(
      Type.Object(
        { video: Type.Optional(TaskScheduleSchema), image: Type.Optional(TaskScheduleSchema) },
        { additionalProperties: false },
      ),
    ),
    media: Type.Optional(
      Type.Object(
        {
          sync_window_ms: Type.Optional(Type.Integer({ minimum: 0 })),
          poll_interval_ms: Type.Optional(Type.Integer({ minimum: 10 })),
          fetch_max_bytes: Type.Optional(Type.Integer({ minimum: 1024 })),
          fetch_timeout_ms: Type.Optional(Type.Integer({ minimum: 100 })),
          file_ttl_seconds: Type.Optional(Type.Integer({ minimum: 60 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export type ConfigFile = Static<typeof ConfigFileSchema>;
export type ProviderEntry = Static<typeof ProviderSchema>;
export type ModelEntry = Static<typeof ModelSchema>;
export type EndpointEntry = Static<typeof EndpointSchema>;
