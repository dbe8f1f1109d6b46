import type { ProviderConfig } from '../../config/types.js';
import { authHeaders } from '../shared/auth-headers.js';
import type { CallContext } from '../provider-adapter.js';
import { postJson, type UpstreamResponse } from '../shared/send-request.js';
import { vertexModelUrl } from '../shared/vertex-model-url.js';
import { bedrockModelUrl } from '../aws/bedrock-model-url.js';
import { parseSse, type SseEvent } from '../shared/parse-sse.js';
import { readBedrockClaudeEvents } from './bedrock-events.js';
import { withFields } from '../../core/with-fields.js';

/** https://platform.claude.com/docs/en/api/versioning */
const anthropicVersion = '2023-06-01';

/**
 * Where and how an Anthropic Messages call goes, apart from its body: shared by the translating
 * adapter and the pass-through, and by any later transport of the same wire (Vertex, Bedrock)
 * that keeps the converters and swaps these.
 */
export function messagesUrl(provider: ProviderConfig): string {
  return `${provider.baseUrl.replace(/\/+$/, '')}/v1/messages`;
}

/** The provider's key and version; the betas a Messages client asked for travel on, as Anthropic's SDK sends them. */
export async function messagesHeaders(provider: ProviderConfig, betas: readonly string[] | undefined): Promise<Record<string, string>> {
  const headers: Record<string, string> = withFields(await authHeaders(provider.auth), { 'anthropic-version': anthropicVersion });
  if (betas && betas.length > 0) headers['anthropic-beta'] = betas.join(',');
  return headers;
}

/** https://docs.cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude */
const vertexAnthropicVersion = 'vertex-2023-10-16';

/** https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html */
const bedrockAnthropicVersion = 'bedrock-2023-05-31';

/**
 * POSTs a Messages body to the provider. On Anthropic's API: `/v1/messages` with the version
 * header. On Vertex AI: the model goes in the URL (`:rawPredict`, `:streamRawPredict` when
 * streaming) and out of the body, and the version in the body, as Vertex requires. On Bedrock:
 * the model in the URL (`/invoke`, `/invoke-with-response-stream`), `model` and `stream` out of
 * the body (Bedrock refuses them as extraneous keys), the version and the betas
 * (`anthropic_beta: [...]`) in it; the request is signed in `sendRequest`.
 */
export async function postMessages(context: CallContext, betas: readonly string[] | undefined, body: object, stream: boolean): Promise<UpstreamResponse> {
  const { provider } = context;
  if (provider.platform?.kind === 'bedrock') {
    const { model: _model, stream: _stream, ...rest } = body as Record<string, unknown>;
    const payload: Record<string, unknown> = { ...rest, anthropic_version: bedrockAnthropicVersion };
    if (betas && betas.length > 0) payload.anthropic_beta = betas;
    const headers = { ...(await authHeaders(provider.auth)), accept: stream ? 'application/vnd.amazon.eventstream' : 'application/json' };
    return postJson(context, bedrockModelUrl(provider, context.providerModel, stream ? 'invoke-with-response-stream' : 'invoke'), headers, payload);
  }
  if (provider.platform?.kind !== 'vertex') return postJson(context, messagesUrl(provider), await messagesHeaders(provider, betas), body);
  const { model: _model, ...rest } = body as Record<string, unknown>;
  const headers = await authHeaders(provider.auth);
  if (betas && betas.length > 0) headers['anthropic-beta'] = betas.join(',');
  const url = vertexModelUrl(provider, provider.platform, 'anthropic', context.providerModel, stream ? 'streamRawPredict' : 'rawPredict');
  return postJson(context, url, headers, { ...rest, anthropic_version: vertexAnthropicVersion });
}

/** A Messages stream's events: SSE from Anthropic and Vertex, AWS event stream frames from Bedrock. */
export function readMessagesEvents(provider: ProviderConfig, chunks: AsyncIterable<Uint8Array | string>): AsyncIterable<SseEvent> {
  return provider.platform?.kind === 'bedrock' ? readBedrockClaudeEvents(provider.id, chunks) : parseSse(chunks);
}
