import type { Message } from '../../core/content.js';
import type { AnthropicOptions, CanonicalParameter, TextRequest } from '../../core/text-request.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { decodeRouteRequest } from '../shared/decode-route-request.js';
import { topLevelFields } from '../shared/field-table.js';
import { decodeAnthropicOptions } from './decode-anthropic-options.js';
import { messagesFieldTable } from './field-table.js';
import { webSearchDomainFilter, type DecodedTextCall, type OfferedHostedTool, type RequestedParameter } from '../shared/text-call.js';
import { isAbsent, readBoolean, readInteger, readNumber, readStringList } from '../shared/read-json-fields.js';
import { decodeMessages, decodeSystem } from './decode-messages.js';
import { decodeMetadataUser, decodeOutputConfig, decodeOutputFormat, decodeThinking } from './decode-output-options.js';
import { decodeToolChoice, decodeTools } from './decode-tools.js';

const acceptedFields = topLevelFields(messagesFieldTable);

/**
 * Decodes an Anthropic Messages body (with OpenRouter's `models` and `provider`) into the
 * canonical call. `max_tokens` is required here, as in Anthropic's API; being mandatory it is
 * not listed in `parameters`, which names only the optional parameters the client chose.
 */
export function decodeMessagesRequest(body: Record<string, unknown>, headers: Record<string, string | string[] | undefined> = {}): DecodedTextCall {
  for (const field of Object.keys(body)) {
    if (!acceptedFields.has(field)) throw unsupportedParameter(field);
  }
  const route = decodeRouteRequest(body);
  if (isAbsent(body.max_tokens)) throw invalidRequest("'max_tokens' is required", 'max_tokens');
  const maxTokens = readInteger(body.max_tokens, 'max_tokens', 1);
  const system: Message[] = isAbsent(body.system) ? [] : decodeSystem(body.system);
  const request: TextRequest = {
    messages: [...system, ...decodeMessages(body.messages)],
    maxTokens,
    stream: isAbsent(body.stream) ? false : readBoolean(body.stream, 'stream'),
  };
  const parameters: RequestedParameter[] = [];
  const record = (field: string, name: CanonicalParameter) => parameters.push({ name, field });
  const has = (field: string) => !isAbsent(body[field]);
  let serverToolNames: string[] = [];
  let offeredTools: OfferedHostedTool[] = [];

  const anthropic = decodeAnthropicOptions(body, headers, hasBlockBreakpoints(body));
  if (anthropic) request.anthropic = anthropic;
  if (has('tools')) {
    const { tools, webSearch, domainFilter, offered, serverToolNames: names } = decodeTools(body.tools);
    serverToolNames = names;
    offeredTools = offered;
    if (tools.length > 0) {
      request.tools = tools;
      record('tools', 'tools');
    }
    if (webSearch) {
      // Offered, never forced (tool_choice may not name it): a preference.
      request.webSearch = webSearch;
      parameters.push({ name: 'web_search', field: 'tools[type=web_search]', preference: true });
      if (domainFilter) parameters.push({ ...webSearchDomainFilter(domainFilter), preference: true });
    }
  }
  if (has('tool_choice')) {
    const { toolChoice, parallelToolCalls } = decodeToolChoice(body.tool_choice, request.tools, serverToolNames);
    request.toolChoice = toolChoice;
    record('tool_choice', 'tool_choice');
    // A hint: honoured where the provider has the switch, and a provider that has none decides itself.
    if (parallelToolCalls !== undefined) request.parallelToolCalls = parallelToolCalls;
  }
  if (has('stop_sequences')) {
    request.stop = readStringList(body.stop_sequences, 'stop_sequences');
    record('stop_sequences', 'stop');
  }
  if (has('temperature')) {
    request.temperature = readNumber(body.temperature, 'temperature', 0, 1);
    record('temperature', 'temperature');
  }
  if (has('top_p')) {
    request.topP = readNumber(body.top_p, 'top_p', 0, 1);
    record('top_p', 'top_p');
  }
  if (has('top_k')) {
    request.topK = readInteger(body.top_k, 'top_k', 0);
    record('top_k', 'top_k');
  }
  decodeReasoningAndFormat(body, request, record, parameters);
  // An end-user id is a hint (recorded, forwarded where a provider has a field), never a
  // requirement that routing checks against endpoints.
  const user = has('metadata') ? decodeMetadataUser(body.metadata) : undefined;
  if (user !== undefined) request.user = request.endUser = user;
  return { route, request, parameters, ...(offeredTools.length > 0 && { offeredTools }) };
}

/**
 * `thinking` sets the reasoning budget, `output_config` its effort and the answer's JSON schema.
 * What Anthropic takes as sent (`disabled`, `between_tools`, `block_binding`, the effort itself,
 * `task_budget`) goes into `request.anthropic`, which only the Anthropic adapter reads.
 */
function decodeReasoningAndFormat(
  body: Record<string, unknown>,
  request: TextRequest,
  record: (field: string, name: CanonicalParameter) => void,
  parameters: RequestedParameter[],
): void {
  // Reasoning is a preference (contract §4): endpoints that reason go first, and where the model
  // does not reason the request is served without it (Qwen Code and Claude Code send thinking on
  // every request, whatever the model).
  const preferReasoning = (field: string) => parameters.push({ name: 'reasoning', field, preference: true });
  let thinkingOff = false;
  if (!isAbsent(body.thinking)) {
    const { reasoning, disabled, betweenTools, blockBinding } = decodeThinking(body.thinking);
    thinkingOff = disabled === true || betweenTools === true;
    if (reasoning) {
      request.reasoning = reasoning;
      preferReasoning('thinking');
    }
    if (disabled) addAnthropicOptions(request, { thinkingDisabled: disabled });
    if (betweenTools) addAnthropicOptions(request, { betweenTools });
    if (blockBinding) addAnthropicOptions(request, { blockBinding });
  }
  if (!isAbsent(body.output_format)) {
    // The beta's older name for output_config.format.
    request.responseFormat = decodeOutputFormat(body.output_format, 'output_format');
    record('output_format', 'response_format');
  }
  if (isAbsent(body.output_config)) return;
  const { effort, anthropicEffort, responseFormat, taskBudget } = decodeOutputConfig(body.output_config);
  if (anthropicEffort) addAnthropicOptions(request, { effort: anthropicEffort });
  if (taskBudget) addAnthropicOptions(request, { taskBudget });
  // An effort is advisory as well: it tunes thinking where there is thinking. Beside thinking the
  // client turned off it is Anthropic's alone (there it also governs the answer's length and tool
  // calls): it asks no other protocol to reason.
  if (effort && !thinkingOff) {
    request.reasoning = { ...request.reasoning, effort };
    preferReasoning('output_config.effort');
  }
  if (responseFormat) {
    request.responseFormat = responseFormat;
    record('output_config.format', 'response_format');
  }
}

function addAnthropicOptions(request: TextRequest, options: Partial<AnthropicOptions>): void {
  request.anthropic = { body: {}, betas: [], ...request.anthropic, ...options };
}

/** Whether a system, message or tool block carries a `cache_control` breakpoint. */
function hasBlockBreakpoints(body: Record<string, unknown>): boolean {
  const marked = (blocks: unknown) => Array.isArray(blocks) && blocks.some((block) => typeof block === 'object' && block !== null && 'cache_control' in block);
  if (marked(body.system) || marked(body.tools)) return true;
  return Array.isArray(body.messages) && body.messages.some((message) => typeof message === 'object' && message !== null && marked((message as { content?: unknown }).content));
}
