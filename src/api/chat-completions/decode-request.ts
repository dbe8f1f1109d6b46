import type { CanonicalParameter, TextRequest } from '../../core/text-request.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { decodeRouteRequest } from '../shared/decode-route-request.js';
import { topLevelFields } from '../shared/field-table.js';
import { checkChatHints, decodeWebSearchOptions } from './check-hints.js';
import { chatCompletionsFieldTable } from './field-table.js';
import type { DecodedTextCall, RequestedParameter } from '../shared/text-call.js';
import { decodeMessages } from './decode-messages.js';
import { checkStreamOptions, decodeReasoningEffort, decodeReasoningObject, decodeResponseFormat } from './decode-output-options.js';
import { decodeToolChoice, decodeTools } from './decode-tools.js';
import { isAbsent, isJsonObject, readBoolean, readInteger, readNumber, readObject, readString, rejectUnknownKeys } from '../shared/read-json-fields.js';

/** The style's fields: those with a row in the field table (routing fields included). */
const knownFields = topLevelFields(chatCompletionsFieldTable);

/**
 * Fields whose row says `refused`: a requirement the gateway cannot meet, except in the value
 * that asks for nothing (SDK wrappers such as LangChain send `n: 1` and `logprobs: false` on
 * every call). Each refusal says why.
 */
const neutralValues: Record<string, { neutral: (value: unknown) => boolean; why: string }> = {
  n: { neutral: (value) => value === 1, why: 'is supported only with the value 1; send one request per choice' },
  logprobs: { neutral: (value) => value === false, why: 'is not supported; this gateway does not return logprobs' },
  top_logprobs: { neutral: (value) => value === 0, why: 'is not supported above 0; this gateway does not return logprobs' },
  logit_bias: { neutral: (value) => isJsonObject(value) && Object.keys(value).length === 0, why: 'is not supported; token ids differ between providers' },
  modalities: { neutral: (value) => Array.isArray(value) && value.length === 1 && value[0] === 'text', why: "is supported only as ['text']; use /audio/speech for audio" },
  audio: { neutral: () => false, why: 'is not supported; audio output is not produced here, use /audio/speech' },
  prediction: { neutral: () => false, why: 'is not supported; predicted outputs are not implemented by this gateway' },
  moderation: { neutral: () => false, why: 'is not supported; OpenAI-hosted moderation is not run by this gateway' },
  functions: { neutral: () => false, why: 'is legacy function calling and is not supported; use tools' },
  function_call: { neutral: () => false, why: 'is legacy function calling and is not supported; use tool_choice' },
};

/**
 * Decodes an OpenAI Chat Completions body (with OpenRouter's `models`, `provider`, `top_k` and
 * `reasoning`) into the canonical call. Every optional parameter the client set is listed in
 * `parameters` under its canonical name and the field name the client used.
 */
export function decodeChatCompletionsRequest(body: Record<string, unknown>): DecodedTextCall {
  // for…in rather than Object.entries: a parsed body has only own fields, and entries() went
  // through V8's runtime on every request.
  for (const field in body) {
    if (!knownFields.has(field)) throw unsupportedParameter(field);
    const value = body[field];
    const refused = neutralValues[field];
    if (refused && !isAbsent(value) && !refused.neutral(value)) throw unsupportedParameter(field, refused.why);
  }
  checkChatHints(body);
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
  // A hint (contract §4): honoured where the protocol has the switch, never a reason to refuse a route.
  if (!isAbsent(body.parallel_tool_calls)) request.parallelToolCalls = readBoolean(body.parallel_tool_calls, 'parallel_tool_calls');
  decodeMaxTokens(body, request, given);
  if (given('temperature', 'temperature')) request.temperature = readNumber(body.temperature, 'temperature', 0, 2);
  if (given('top_p', 'top_p')) request.topP = readNumber(body.top_p, 'top_p', 0, 1);
  if (given('top_k', 'top_k')) request.topK = readInteger(body.top_k, 'top_k', 0);
  // A penalty of 0 is the neutral value: it asks for nothing, so no model is refused for it.
  if (isNonZero(body.frequency_penalty) && given('frequency_penalty', 'frequency_penalty')) request.frequencyPenalty = readNumber(body.frequency_penalty, 'frequency_penalty', -2, 2);
  if (isNonZero(body.presence_penalty) && given('presence_penalty', 'presence_penalty')) request.presencePenalty = readNumber(body.presence_penalty, 'presence_penalty', -2, 2);
  if (given('seed', 'seed')) request.seed = readInteger(body.seed, 'seed', Number.MIN_SAFE_INTEGER);
  if (given('stop', 'stop')) request.stop = decodeStop(body.stop);
  if (given('response_format', 'response_format')) request.responseFormat = decodeResponseFormat(body.response_format);
  decodeReasoning(body, request, parameters);
  if (!isAbsent(body.user)) request.user = readString(body.user, 'user');
  // The request log's end user: OpenAI's newer `safety_identifier` (shape checked above) wins.
  const endUser = isAbsent(body.safety_identifier) ? request.user : (body.safety_identifier as string);
  if (endUser !== undefined) request.endUser = endUser;
  if (!isAbsent(body.prompt_cache_key)) request.promptCacheKey = readString(body.prompt_cache_key, 'prompt_cache_key');
  if (!isAbsent(body.web_search_options)) {
    // The search is offered, never forced: a preference, left out where the endpoint has none.
    request.webSearch = decodeWebSearchOptions(body.web_search_options);
    parameters.push({ name: 'web_search', field: 'web_search_options', preference: true });
  }
  decodeOnlineSearch(body, route, request, parameters);
  return { route, request, parameters };
}

const webPluginKeys = new Set(['id', 'enabled', 'max_results', 'search_prompt', 'engine']);

/**
 * OpenRouter's two ways to ask for a web search on any model: the `web` plugin and the `:online`
 * model suffix. Both offer the search as `web_search_options` does: a preference, which the
 * endpoint's own search or the gateway's (hosted_tools) serves, else left out and said.
 * https://openrouter.ai/docs/guides/features/plugins/web-search
 */
function decodeOnlineSearch(body: Record<string, unknown>, route: DecodedTextCall['route'], request: TextRequest, parameters: RequestedParameter[]): void {
  let field: string | undefined;
  if (route.model.endsWith(':online')) {
    route.model = route.model.slice(0, -':online'.length);
    field = 'model';
  }
  if (!isAbsent(body.plugins)) {
    if (!Array.isArray(body.plugins)) throw invalidRequest("'plugins' must be an array", 'plugins');
    body.plugins.forEach((plugin: unknown, index) => {
      const path = `plugins[${index}]`;
      if (!isJsonObject(plugin)) throw invalidRequest(`'${path}' must be an object`, path);
      if (plugin.id !== 'web') throw unsupportedParameter(`${path}.id`, `'${String(plugin.id)}' is not supported; the only plugin is 'web' (a web search)`);
      rejectUnknownKeys(plugin, webPluginKeys, path);
      if (plugin.enabled !== false) field = path;
    });
  }
  if (field === undefined || request.webSearch) return;
  request.webSearch = {};
  parameters.push({ name: 'web_search', field, preference: true });
}

function isNonZero(value: unknown): boolean {
  return !isAbsent(value) && value !== 0;
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
function decodeReasoning(body: Record<string, unknown>, request: TextRequest, parameters: RequestedParameter[]): void {
  if (!isAbsent(body.reasoning_effort) && !isAbsent(body.reasoning)) {
    throw invalidRequest("Set only one of 'reasoning_effort' and 'reasoning'", 'reasoning');
  }
  // `none` asks for no reasoning: the neutral value, never a requirement.
  if (body.reasoning_effort === 'none') return;
  // A preference (contract §4): endpoints that reason go first; where the model does not reason,
  // the request is served without it and the answer says so.
  if (!isAbsent(body.reasoning_effort)) {
    request.reasoning = decodeReasoningEffort(body.reasoning_effort);
    parameters.push({ name: 'reasoning', field: 'reasoning_effort', preference: true });
  }
  if (!isAbsent(body.reasoning)) {
    const reasoning = decodeReasoningObject(body.reasoning);
    if (reasoning !== undefined) {
      request.reasoning = reasoning;
      parameters.push({ name: 'reasoning', field: 'reasoning', preference: true });
    }
  }
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
