import type { TextRequest } from '../../core/text-request.js';
import type { CallContext } from '../provider-adapter.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { postJson, readJsonObject } from '../shared/send-request.js';
import { convertToAnthropicRequest } from './convert-request.js';
import { authHeaders } from '../shared/auth-headers.js';

/** The version the adapter speaks when the client named none (https://platform.claude.com/docs/en/api/versioning). */
const defaultAnthropicVersion = '2023-06-01';

/**
 * The fields Anthropic's count_tokens takes (`MessageCountTokensParams`, beta ones included);
 * it refuses the rest (`max_tokens`, `temperature`, `metadata` … are "extra inputs").
 */
const countTokensFields = new Set([
  'model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'output_config', 'output_format',
  'context_management', 'mcp_servers', 'cache_control', 'speed',
]);

/**
 * Asks an Anthropic endpoint how many input tokens a request holds (`POST {baseUrl}/v1/messages/
 * count_tokens`): the request as the adapter would send it, under the provider's model name,
 * without the fields count_tokens refuses, with the client's `anthropic-version` and betas.
 * Rejects with an `UpstreamError` when the provider fails or answers without a count.
 */
export async function countAnthropicTokens(request: TextRequest, context: CallContext, anthropicVersion?: string): Promise<number> {
  const full = convertToAnthropicRequest(request, context.providerModel, false) as unknown as Record<string, unknown>;
  const body = Object.fromEntries(Object.entries(full).filter(([field]) => countTokensFields.has(field)));
  const headers: Record<string, string> = { ...(await authHeaders(context.provider.auth)), 'anthropic-version': anthropicVersion ?? defaultAnthropicVersion };
  if (request.anthropic && request.anthropic.betas.length > 0) headers['anthropic-beta'] = request.anthropic.betas.join(',');
  const url = `${context.provider.baseUrl.replace(/\/+$/, '')}/v1/messages/count_tokens`;
  const answer = await readJsonObject<{ input_tokens?: unknown }>(context.provider.id, await postJson(context, url, headers, body));
  if (typeof answer.input_tokens !== 'number' || !Number.isSafeInteger(answer.input_tokens) || answer.input_tokens < 0) {
    throw createProtocolError(context.provider.id, 'answered count_tokens without a token count', JSON.stringify(answer));
  }
  return answer.input_tokens;
}
