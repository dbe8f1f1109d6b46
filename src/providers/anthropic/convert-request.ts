import type { ReasoningOptions, ResponseFormat, TextRequest, ToolChoice, ToolDefinition, WebSearchOptions } from '../../core/text-request.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { convertToAnthropicMessages } from './convert-messages.js';
import { addJsonModeTool, emulatesJsonMode } from './emulate-json-mode.js';
import type { AnthropicMessagesBody, AnthropicTool, AnthropicToolChoice, AnthropicWebSearchTool } from '../../wire/anthropic/wire-types.js';

/** Anthropic requires `max_tokens`; the gateway normally sets it, this covers a request without. */
const defaultMaxTokens = 4096;

/** Anthropic's smallest thinking budget: https://platform.claude.com/docs/en/build-with-claude/extended-thinking */
const minimumThinkingBudget = 1024;

const effortBudgets: Record<NonNullable<ReasoningOptions['effort']>, number> = {
  minimal: 1024,
  low: 1024,
  medium: 4096,
  high: 16384,
};

/**
 * Canonical request → Anthropic Messages body (https://platform.claude.com/docs/en/api/messages).
 * Parameters Anthropic has no field for are refused by name, never dropped; routing normally
 * refuses them earlier through the endpoint's `supported_parameters`.
 */
export function convertToAnthropicRequest(request: TextRequest, providerModel: string, stream: boolean): AnthropicMessagesBody {
  rejectUnsupportedParameters(request);
  const { system, messages } = convertToAnthropicMessages(request.messages);
  const anthropic = request.anthropic;
  // Thinking the Messages client turned off (disabled, between_tools) stays off, whatever the effort.
  const thinkingOff = anthropic?.betweenTools ? 'between_tools' : anthropic?.thinkingDisabled ? 'disabled' : undefined;
  // A Messages client's effort is Anthropic's own output_config.effort, never a budget; only an
  // effort of another style (reasoning_effort) asks for thinking, with the budget it maps to.
  const budget = thinkingOff ? undefined : thinkingBudget(request.reasoning, request.maxTokens, anthropic?.effort === undefined);
  const body: AnthropicMessagesBody = {
    model: providerModel,
    // Thinking tokens count toward max_tokens, which must exceed the budget.
    max_tokens: request.maxTokens ?? (budget === undefined ? defaultMaxTokens : budget + defaultMaxTokens),
    messages,
  };
  if (system !== undefined) body.system = system;
  if (request.tools && request.tools.length > 0) body.tools = request.tools.map(convertTool);
  if (request.webSearch) body.tools = [...(body.tools ?? []), convertWebSearch(request.webSearch)];
  const outputFormat = convertResponseFormat(request.responseFormat);
  if (outputFormat) body.output_config = { format: outputFormat };
  const toolChoice = convertToolChoice(request.toolChoice, request.parallelToolCalls);
  if (toolChoice) body.tool_choice = toolChoice;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.topK !== undefined) body.top_k = request.topK;
  if (request.stop && request.stop.length > 0) body.stop_sequences = request.stop;
  // A Messages client's block_binding goes with the thinking it was sent with (enabled or adaptive).
  const binding = anthropic?.blockBinding ? { block_binding: anthropic.blockBinding } : {};
  if (thinkingOff) {
    body.thinking = { type: thinkingOff };
  } else if (request.reasoning?.adaptive) {
    body.thinking = { type: 'adaptive', ...(request.reasoning.display && { display: request.reasoning.display }), ...binding };
  } else if (budget !== undefined) {
    body.thinking = { type: 'enabled', budget_tokens: budget, ...(request.reasoning?.display && { display: request.reasoning.display }), ...binding };
  }
  // The client's effort goes beside whatever thinking it sent (none at all when routing dropped the
  // advisory reasoning it came with, for an endpoint that does not reason); adaptive thinking
  // without one takes the reasoning's.
  if (thinkingOff || request.reasoning) setEffort(body, anthropic?.effort ?? (request.reasoning?.adaptive ? request.reasoning.effort : undefined));
  if (anthropic?.taskBudget) body.output_config = { ...body.output_config, task_budget: anthropic.taskBudget };
  if (emulatesJsonMode(request)) addJsonModeTool(body, request);
  if (request.user !== undefined) body.metadata = { user_id: request.user };
  // Anthropic-only fields of a Messages client (context_management, cache_control …), as sent.
  if (anthropic) Object.assign(body, anthropic.body);
  if (stream) body.stream = true;
  return body;
}

function setEffort(body: AnthropicMessagesBody, effort: NonNullable<ReasoningOptions['effort']> | 'xhigh' | 'max' | undefined): void {
  if (effort !== undefined) body.output_config = { ...body.output_config, effort: effort === 'minimal' ? 'low' : effort };
}

function rejectUnsupportedParameters(request: TextRequest): void {
  if (request.seed !== undefined) throw unsupportedParameter('seed');
  if (request.frequencyPenalty !== undefined) throw unsupportedParameter('frequency_penalty');
  if (request.presencePenalty !== undefined) throw unsupportedParameter('presence_penalty');
}

/**
 * An explicit budget is sent as given; an effort (when `effortAsksForThinking`) maps onto a fixed
 * budget. Either must be at least 1024 and below max_tokens, or Anthropic refuses the request: say
 * so here, by name, rather than shrinking the budget behind the client's back.
 */
function thinkingBudget(reasoning: ReasoningOptions | undefined, maxTokens: number | undefined, effortAsksForThinking: boolean): number | undefined {
  if (reasoning?.adaptive) return undefined;
  const budget = reasoning?.maxTokens ?? (reasoning?.effort === undefined || !effortAsksForThinking ? undefined : effortBudgets[reasoning.effort]);
  if (budget === undefined) return undefined;
  if (budget < minimumThinkingBudget) {
    throw invalidRequest(`'reasoning.max_tokens' must be at least ${minimumThinkingBudget} for this provider`, 'reasoning');
  }
  if (maxTokens !== undefined && budget >= maxTokens) {
    throw invalidRequest(
      `the reasoning budget (${budget} tokens) must be less than 'max_tokens' (${maxTokens}) for this provider`,
      'reasoning',
    );
  }
  return budget;
}

function convertTool(tool: ToolDefinition): AnthropicTool {
  return {
    name: tool.name,
    ...(tool.description !== undefined && { description: tool.description }),
    input_schema: tool.parameters,
    ...(tool.strict !== undefined && { strict: tool.strict }),
  };
}

function convertToolChoice(choice: ToolChoice | undefined, parallelToolCalls: boolean | undefined): AnthropicToolChoice | undefined {
  if (choice === 'none') return { type: 'none' };
  const disableParallel = parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return parallelToolCalls === false ? { type: 'auto', ...disableParallel } : undefined;
  if (choice === 'auto') return { type: 'auto', ...disableParallel };
  if (choice === 'required') return { type: 'any', ...disableParallel };
  return { type: 'tool', name: choice.name, ...disableParallel };
}

/**
 * OpenAI-style structured output (Chat `response_format`, Responses `text.format`) → Anthropic's
 * `output_config.format`. A `text` format asks for nothing beyond the default. Anthropic has no
 * schema-less JSON mode: `json_object` is emulated with a tool (`emulate-json-mode.ts`).
 */
function convertResponseFormat(format: ResponseFormat | undefined): NonNullable<AnthropicMessagesBody['output_config']>['format'] {
  if (!format || format.type === 'text' || format.type === 'json_object') return undefined;
  return { type: 'json_schema', schema: format.schema };
}

/** The hosted web search → Anthropic's server tool (search context size has no Anthropic knob). */
function convertWebSearch(options: WebSearchOptions): AnthropicWebSearchTool {
  const tool: AnthropicWebSearchTool = { type: 'web_search_20250305', name: 'web_search' };
  if (options.allowedDomains) tool.allowed_domains = options.allowedDomains;
  if (options.blockedDomains) tool.blocked_domains = options.blockedDomains;
  if (options.userLocation) tool.user_location = { type: 'approximate', ...options.userLocation };
  return tool;
}
