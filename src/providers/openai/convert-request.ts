import type { TextRequest, ToolChoice, ResponseFormat } from '../../core/text-request.js';
import { unsupportedParameter } from '../../errors/gateway-error.js';
import type { ChatCompletionsBody, ChatResponseFormat, ChatToolChoice } from './chat-completions-body.js';
import { convertToChatMessages } from './convert-messages.js';
import { refuseAnthropicOnly } from '../shared/refuse-anthropic-only.js';

export interface ChatCompletionsTarget {
  providerModel: string;
  /** The provider's base URL: some fields depend on whether it is OpenAI itself. */
  baseUrl: string;
  stream: boolean;
}

/**
 * Canonical request → Chat Completions body (https://platform.openai.com/docs/api-reference/chat/create).
 * Sets only what the request sets; throws `GatewayError` for what this protocol cannot carry.
 */
export function convertToChatCompletionsRequest(request: TextRequest, target: ChatCompletionsTarget): ChatCompletionsBody {
  const openai = isOpenAiHost(target.baseUrl);
  const body: ChatCompletionsBody = { model: target.providerModel, messages: convertToChatMessages(request.messages) };
  if (target.stream) {
    body.stream = true;
    // Without it OpenAI sends no usage at all on streams.
    body.stream_options = { include_usage: true };
  }
  if (request.tools) {
    body.tools = request.tools.map(({ name, description, parameters, strict }) => ({
      type: 'function',
      function: { name, description, parameters, strict },
    }));
  }
  if (request.toolChoice !== undefined) body.tool_choice = convertToolChoice(request.toolChoice);
  // OpenAI answers 400 to parallel_tool_calls without tools; without tools it means nothing.
  if (request.parallelToolCalls !== undefined && request.tools?.length) body.parallel_tool_calls = request.parallelToolCalls;
  if (request.maxTokens !== undefined) {
    // OpenAI deprecated max_tokens and reasoning models refuse it; most compatible servers know only max_tokens.
    if (openai) body.max_completion_tokens = request.maxTokens;
    else body.max_tokens = request.maxTokens;
  }
  if (request.topK !== undefined) {
    // Not a Chat Completions field, but vLLM, Together and OpenRouter accept it; OpenAI rejects it.
    if (openai) throw unsupportedParameter('top_k', 'is not supported by this provider');
    body.top_k = request.topK;
  }
  refuseAnthropicOnly(request.anthropic, target.providerModel);
  // A budget alone cannot be expressed; a budget with an effort (a Messages client's thinking,
  // whose budget the decoder also states as an effort) goes as that effort.
  if (request.reasoning?.maxTokens !== undefined && request.reasoning.effort === undefined) {
    throw unsupportedParameter('reasoning.max_tokens', 'is not supported by this provider; use reasoning.effort');
  }
  if (request.reasoning?.effort !== undefined) body.reasoning_effort = request.reasoning.effort;
  if (request.responseFormat) body.response_format = convertResponseFormat(request.responseFormat);
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.frequencyPenalty !== undefined) body.frequency_penalty = request.frequencyPenalty;
  if (request.presencePenalty !== undefined) body.presence_penalty = request.presencePenalty;
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.stop !== undefined) body.stop = request.stop;
  if (request.user !== undefined) body.user = request.user;
  // OpenAI's own field; compatible servers may refuse what they do not know, and it is only a hint.
  if (request.promptCacheKey !== undefined && openai) body.prompt_cache_key = request.promptCacheKey;
  if (request.webSearch) {
    const { contextSize, userLocation, allowedDomains, blockedDomains } = request.webSearch;
    // Routing sends a domain filter only to a search that takes one: never drop it here.
    if (allowedDomains || blockedDomains) {
      throw unsupportedParameter('web_search', `domain filters are not supported by '${target.providerModel}': web_search_options has no domain filter`);
    }
    body.web_search_options = {
      ...(contextSize === undefined ? {} : { search_context_size: contextSize }),
      ...(userLocation === undefined ? {} : { user_location: { type: 'approximate' as const, approximate: userLocation } }),
    };
  }
  return body;
}

function convertToolChoice(choice: ToolChoice): ChatToolChoice {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

function convertResponseFormat(format: ResponseFormat): ChatResponseFormat {
  if (format.type !== 'json_schema') return { type: format.type };
  const { name, schema, description, strict } = format;
  return { type: 'json_schema', json_schema: { name, schema, description, strict } };
}

/** Per configured base URL (a finite set): the relay asks on every request, and a URL parse costs ~1–2 µs. */
const openAiHosts = new Map<string, boolean>();

export function isOpenAiHost(baseUrl: string): boolean {
  let openai = openAiHosts.get(baseUrl);
  if (openai === undefined) {
    openai = URL.canParse(baseUrl) && new URL(baseUrl).hostname === 'api.openai.com';
    openAiHosts.set(baseUrl, openai);
  }
  return openai;
}
