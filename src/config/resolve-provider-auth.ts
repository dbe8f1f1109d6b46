import type { ProviderEntry } from './config-schema.js';
import type { ProviderApi, ProviderAuth, ProviderPlatform } from './types.js';

/**
 * Where each protocol's vendor expects its API key. A `Record` over every protocol, so a protocol
 * added to the descriptor does not compile until its key's place is stated here.
 */
const keyPlacement: Record<ProviderApi, (key: string) => ProviderAuth> = {
  openai: (token) => ({ kind: 'bearer', token }),
  anthropic: (key) => ({ kind: 'api-key-header', header: 'x-api-key', key }),
  gemini: (key) => ({ kind: 'api-key-header', header: 'x-goog-api-key', key }),
  // A Bedrock API key is a bearer token: https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-use.html
  bedrock: (token) => ({ kind: 'bearer', token }),
  fal: (key) => ({ kind: 'api-key-header', header: 'authorization', scheme: 'Key', key }),
  // https://docs.cohere.com/reference/embed (Authorization: Bearer)
  cohere: (token) => ({ kind: 'bearer', token }),
  // https://docs.voyageai.com/reference/embeddings-api (Authorization: Bearer)
  voyage: (token) => ({ kind: 'bearer', token }),
  // https://jina.ai/embeddings/ (Authorization: Bearer)
  jina: (token) => ({ kind: 'bearer', token }),
};

/** Where each cloud expects the API key of the protocol it hosts. */
const platformKeyPlacement: Record<ProviderPlatform['kind'], (key: string) => ProviderAuth> = {
  // https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference#authentication
  azure: (key) => ({ kind: 'api-key-header', header: 'api-key', key }),
  // A Vertex AI API key (express mode), in Google's key header.
  vertex: (key) => ({ kind: 'api-key-header', header: 'x-goog-api-key', key }),
  // A Bedrock API key is a bearer token: https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-use.html
  bedrock: (token) => ({ kind: 'bearer', token }),
};

const googleTokenUrl = 'https://oauth2.googleapis.com/token';

/**
 * A provider's authentication from its protocol, platform and secrets; no secret (or an empty
 * one) sends none. A Vertex service account must be a key file's JSON with `client_email` and
 * `private_key`; the error names the field, never the secret.
 */
export function resolveProviderAuth(
  entry: ProviderEntry,
  platform: ProviderPlatform | undefined,
  path: string,
  fail: (path: string, expected: string) => never,
): ProviderAuth {
  if (entry.platform?.kind === 'vertex' && entry.platform.service_account) {
    const field = `${path}.platform.service_account`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(entry.platform.service_account);
    } catch {
      return fail(field, 'expected the JSON of a service account key file');
    }
    const account = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
    if (typeof account.client_email !== 'string' || typeof account.private_key !== 'string') {
      return fail(field, 'expected a service account key file with client_email and private_key');
    }
    return {
      kind: 'google-service-account',
      providerId: entry.id,
      clientEmail: account.client_email,
      privateKey: account.private_key,
      ...(typeof account.private_key_id === 'string' && { privateKeyId: account.private_key_id }),
      tokenUri: typeof account.token_uri === 'string' ? account.token_uri : googleTokenUrl,
    };
  }
  if (entry.platform?.kind === 'bedrock' && platform?.kind === 'bedrock') {
    const aws = resolveAwsKeys(entry.platform, entry.api_key, platform.region, `${path}.platform`, fail);
    if (aws) return aws;
  }
  const key = entry.api_key;
  if (!key) return { kind: 'none' };
  return platform ? platformKeyPlacement[platform.kind](key) : keyPlacement[entry.api](key);
}

type BedrockPlatformEntry = Extract<NonNullable<ProviderEntry['platform']>, { kind: 'bedrock' }>;

/**
 * AWS access keys for SigV4, when the platform names them: both halves of the pair or neither,
 * a session token only with them, and not together with a Bedrock API key. An empty value (an
 * unset variable) counts as absent; with `access_key_id` empty the provider is off.
 */
function resolveAwsKeys(
  entry: BedrockPlatformEntry,
  apiKey: string | undefined,
  region: string,
  path: string,
  fail: (path: string, expected: string) => never,
): ProviderAuth | undefined {
  const accessKeyId = entry.access_key_id || undefined;
  const secretAccessKey = entry.secret_access_key || undefined;
  const sessionToken = entry.session_token || undefined;
  // Named but its variable unset: the provider is off, and sends nothing rather than fall back to another credential.
  if (accessKeyId === undefined && entry.access_key_id !== undefined) return { kind: 'none' };
  if (accessKeyId === undefined) {
    if (secretAccessKey !== undefined) fail(`${path}.access_key_id`, 'expected the access key id that goes with secret_access_key');
    if (sessionToken !== undefined) fail(`${path}.session_token`, 'expected access_key_id and secret_access_key with a session token');
    return undefined;
  }
  if (secretAccessKey === undefined) fail(`${path}.secret_access_key`, 'expected the secret access key that goes with access_key_id');
  if (apiKey) fail(`${path}.access_key_id`, 'expected either AWS access keys (SigV4) or api_key (a Bedrock API key), not both');
  return { kind: 'aws-sigv4', accessKeyId, secretAccessKey: secretAccessKey!, ...(sessionToken !== undefined && { sessionToken }), region, service: 'bedrock' };
}
