import type { CanonicalParameter, TextRequest } from '../../core/text-request.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { decodeRouteRequest, routeFields } from '../shared/decode-route-request.js';
import type { DecodedTextCall, RequestedParameter } from '../shared/text-call.js';
import { decodeMessages } from './decode-messages.js';
import { checkStreamOptions, decodeReasoningEffort, decodeReasoningObject, decodeResponseFormat } from './decode-output-options.js';
import { decodeToolChoice, decodeTools } from './decode-tools.js';
import { isAbsent, readBoolean, readInteger, readNumber, readObject, readString, rejectUnknownKeys } from '../shared/read-json-fields.js';

const handledFields = new Set<string>([
  ...routeFields,
  'messages', 'stream', 'stream_options', 'usage', 'tools', 'tool_choice', 'parallel_tool_calls', 'max_tokens',
  'max_completion_tokens', 'temperature', 'top_p', 'top_k', 'frequency_penalty', 'presence_penalty', 'seed', 'stop',
  'response_format', 'reasoning_effort', 'reasoning', 'user',
]);

/** The "off" value of OpenAI fields the gateway does not implement: asking for the default asks for nothing. */
const inertValues: Record<string, (value: unknown) => boolean> = {
  n: (value) => value === 1,
  logprobs: (value) => value === false,
  store: (value) => value === false,
  modalities: (value) => Array.isArray(value) && value.length === 1 && value[0] === 'text',
};

/**
 * OpenAI fields the gateway does not implement: 400 naming the field, unless null or inert
 * (SDK wrappers such as LangChain send `n: 1` and `logprobs: false` on every call).
 */
const refusedFields = new Set([
  ...Object.keys(inertValues),
  'top_logprobs', 'logit_bias', 'functions', 'function_call', 'audio', 'prediction', 'metadata', 'service_tier',
  'web_search_options', 'verbosity', 'prompt_cache_key', 'prompt_cache_retention', 'prompt_cache_options',
  'safety_identifier', 'moderation',
]);

/**
 * Decodes an OpenAI Chat Completions body (with OpenRouter's `models`, `provider`, `top_k` and
 * `reasoning`) into the canonical call. Every optional parameter the client set is listed in
 * `parameters` under its canonical name and the field name the client used.
 */
export function decodeChatCompletionsRequest(body: Record<string, unknown>): DecodedTextCall {
  for (const [field, value] of Object.entries(body)) {
    if (handledFields.has(field) || (refusedFields.has(field) && (isAbsent(value) || inertValues[field]?.(value)))) continue;
    throw unsupportedParameter(field, field === 'n' ? 'is supported only with the value 1' : undefined);
  }
  const route = decodeRouteRequest(body);
  const stream = isAbsent(body.stream) ? false : readBoolean(body.stream, 'stream');
  const request: TextRequest = { messages: decodeMessages(body.messages), stream };
  const parameters: RequestedParameter[] = [];
  const given: Given = (field, name) => {
    if (isAbsent(body[field])) return false;
    parameters.push({ name, field });
    return true;
  };

  if (!isAbsent(body.stream_options)) checkStreamOptions(body.stream_options, stream);
  if (!isAbsent(body.usage)) checkUsageOption(body.usage);
  if (given('tools', 'tools')) request.tools = decodeTools(body.tools);
  if (given('tool_choice', 'tool_choice')) request.toolChoice = decodeToolChoice(body.tool_choice, request.tools);
  if (given('parallel_tool_calls', 'parallel_tool_calls')) request.parallelToolCalls = readBoolean(body.parallel_tool_calls, 'parallel_tool_calls');
  decodeMaxTokens(body, request, given);
  if (given('temperature', 'temperature')) request.temperature = readNumber(body.temperature, 'temperature', 0, 2);
  if (given('top_p', 'top_p')) request.topP = readNumber(body.top_p, 'top_p', 0, 1);
  if (given('top_k', 'top_k')) request.topK = readInteger(body.top_k, 'top_k', 0);
  if (given('frequency_penalty', 'frequency_penalty')) request.frequencyPenalty = readNumber(body.frequency_penalty, 'frequency_penalty', -2, 2);
  if (given('presence_penalty', 'presence_penalty')) request.presencePenalty = readNumber(body.presence_penalty, 'presence_penalty', -2, 2);
  if (given('seed', 'seed')) request.seed = readInteger(body.seed, 'seed', Number.MIN_SAFE_INTEGER);
  if (given('stop', 'stop')) request.stop = decodeStop(body.stop);
  if (given('response_format', 'response_format')) request.responseFormat = decodeResponseFormat(body.response_format);
  decodeReasoning(body, request, given);
  if (given('user', 'user')) request.user = readString(body.user, 'user');
  return { route, request, parameters };
}

/** Records `field` as a requested parameter when the body sets it (not null); says whether it did. */
type Given = (field: string, name: CanonicalParameter) => boolean;

/** `max_completion_tokens` is OpenAI's newer name for `max_tokens`; sending both is ambiguous. */
function decodeMaxTokens(body: Record<string, unknown>, request: TextRequest, given: Given): void {
  if (!isAbsent(body.max_tokens) && !isAbsent(body.max_completion_tokens)) {
    throw invalidRequest("Set only one of 'max_tokens' and 'max_completion_tokens'", 'max_completion_tokens');
  }
  for (const field of ['max_tokens', 'max_completion_tokens']) {
    if (given(field, 'max_tokens')) request.maxTokens = readInteger(body[field], field, 1);
  }
}

/** `reasoning_effort` (OpenAI) and `reasoning` (OpenRouter) say the same thing; one at a time. */
function decodeReasoning(body: Record<string, unknown>, request: TextRequest, given: Given): void {
  if (!isAbsent(body.reasoning_effort) && !isAbsent(body.reasoning)) {
    throw invalidRequest("Set only one of 'reasoning_effort' and 'reasoning'", 'reasoning');
  }
  if (given('reasoning_effort', 'reasoning')) request.reasoning = decodeReasoningEffort(body.reasoning_effort);
  if (given('reasoning', 'reasoning')) request.reasoning = decodeReasoningObject(body.reasoning);
}

function decodeStop(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string')) {
    throw invalidRequest("'stop' must be a string or an array of strings", 'stop');
  }
  return value as string[];
}

/** OpenRouter's `usage: {include}`: usage is always returned, so only its shape is checked. */
function checkUsageOption(value: unknown): void {
  const usage = readObject(value, 'usage');
  rejectUnknownKeys(usage, new Set(['include']), 'usage');
  if (!isAbsent(usage.include)) readBoolean(usage.include, 'usage.include');
}
