import type { ReasoningOptions, ResponseFormat, TextRequest, ToolChoice, ToolDefinition } from '../../core/text-request.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { refuseAnthropicOnly } from '../shared/refuse-anthropic-only.js';
import { convertToConverseMessages } from './convert-messages.js';
import type { ConverseContentBlock, ConverseRequestBody, ConverseTool, ConverseToolChoice } from './wire-types.js';

/**
 * The model families whose own request fields Converse passes through in
 * `additionalModelRequestFields` (reasoning, `top_k`), told apart by the model id, which may be a
 * foundation model (`anthropic.claude-…`), a cross-region inference profile (`us.amazon.nova-…`)
 * or an ARN ending in either. https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters.html
 */
export type ConverseModelFamily = 'claude' | 'nova' | 'gpt-oss' | 'mistral' | 'other';

export function converseModelFamily(modelId: string): ConverseModelFamily {
  const id = modelId.toLowerCase();
  if (id.includes('anthropic.claude')) return 'claude';
  if (id.includes('amazon.nova')) return 'nova';
  if (id.includes('openai.gpt-oss')) return 'gpt-oss';
  if (id.includes('mistral.')) return 'mistral';
  return 'other';
}

/** Claude's smallest thinking budget: https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html */
const minimumThinkingBudget = 1024;
const defaultMaxTokens = 4096;
const effortBudgets: Record<NonNullable<ReasoningOptions['effort']>, number> = { minimal: 1024, low: 1024, medium: 4096, high: 16384 };
type Effort = 'low' | 'medium' | 'high';

/**
 * Canonical request → Converse body (the model goes in the URL). Converse carries the sampling
 * settings every model shares (`inferenceConfig`), tools, system blocks, images, cache points
 * and structured output; what only one family has (Claude's thinking, Nova's reasoning, `top_k`)
 * goes in `additionalModelRequestFields` as that family names it. What Converse has no field for
 * is refused by name (routing normally refuses it earlier through `supported_parameters`).
 */
export function convertToConverseRequest(request: TextRequest, providerModel: string): ConverseRequestBody {
  refuseAnthropicOnly(request.anthropic, providerModel);
  if (request.seed !== undefined) throw unsupportedParameter('seed', 'is not supported by Bedrock Converse');
  if (request.frequencyPenalty !== undefined) throw unsupportedParameter('frequency_penalty', 'is not supported by Bedrock Converse');
  if (request.presencePenalty !== undefined) throw unsupportedParameter('presence_penalty', 'is not supported by Bedrock Converse');
  if (request.webSearch) throw unsupportedParameter('web_search', 'is not supported by Bedrock Converse: it runs no web search');
  const family = converseModelFamily(providerModel);
  const { system, messages } = convertToConverseMessages(request.messages, { shortToolIds: family === 'mistral' });
  const body: ConverseRequestBody = { messages };
  if (system) body.system = system;
  const additional: Record<string, unknown> = {};
  const budget = family === 'claude' ? claudeThinkingBudget(request) : undefined;
  const inference: NonNullable<ConverseRequestBody['inferenceConfig']> = {};
  // Claude's thinking tokens count toward maxTokens, which must exceed the budget.
  const maxTokens = request.maxTokens ?? (budget === undefined ? undefined : budget + defaultMaxTokens);
  if (maxTokens !== undefined) inference.maxTokens = maxTokens;
  if (request.temperature !== undefined) inference.temperature = request.temperature;
  if (request.topP !== undefined) inference.topP = request.topP;
  if (request.stop && request.stop.length > 0) inference.stopSequences = request.stop;
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;
  if (request.topK !== undefined) setTopK(additional, family, request.topK);
  const toolConfig = convertTools(request.tools, request.toolChoice, body.messages);
  if (toolConfig) body.toolConfig = toolConfig;
  const textFormat = convertResponseFormat(request.responseFormat);
  if (textFormat) body.outputConfig = { textFormat };
  if (request.reasoning && !request.anthropic?.thinkingDisabled && !request.anthropic?.betweenTools) {
    setReasoning(additional, family, request.reasoning, budget);
  }
  if (Object.keys(additional).length > 0) body.additionalModelRequestFields = additional;
  return body;
}

/** `top_k` is a field of Claude's and Mistral's own bodies, and of Nova's `inferenceConfig`; other families have none. */
function setTopK(additional: Record<string, unknown>, family: ConverseModelFamily, topK: number): void {
  if (family === 'claude' || family === 'mistral') additional.top_k = topK;
  else if (family === 'nova') additional.inferenceConfig = { topK };
  else throw unsupportedParameter('top_k', 'is not supported by this Bedrock model: only Claude, Mistral and Nova models take it');
}

/**
 * Reasoning in each family's own words: Claude's `thinking` (a budget, or adaptive), Nova's
 * `reasoningConfig` (an effort), gpt-oss's `reasoning_effort`. Other families reason as they
 * always do (DeepSeek-R1) or not at all: a reasoning setting is a preference, sent nowhere.
 * https://docs.aws.amazon.com/bedrock/latest/userguide/inference-reasoning.html
 */
function setReasoning(additional: Record<string, unknown>, family: ConverseModelFamily, reasoning: ReasoningOptions, budget: number | undefined): void {
  if (family === 'claude') {
    if (reasoning.adaptive && reasoning.maxTokens === undefined) additional.thinking = { type: 'adaptive' };
    else if (budget !== undefined) additional.thinking = { type: 'enabled', budget_tokens: budget };
    return;
  }
  const effort = effortOf(reasoning);
  if (family === 'nova' && effort) additional.reasoningConfig = { type: 'enabled', maxReasoningEffort: effort };
  if (family === 'gpt-oss' && effort) additional.reasoning_effort = effort;
}

/** A budget as an effort: up to 2048 tokens low, up to 8192 medium, more high (the OpenAI wire's rule). */
function effortOf(reasoning: ReasoningOptions): Effort | undefined {
  if (reasoning.effort) return reasoning.effort === 'minimal' ? 'low' : reasoning.effort;
  if (reasoning.maxTokens !== undefined) return reasoning.maxTokens <= 2048 ? 'low' : reasoning.maxTokens <= 8192 ? 'medium' : 'high';
  return undefined;
}

/** As on Anthropic's API: at least 1024 and below max_tokens, or Bedrock refuses the request, so say so here by name. */
function claudeThinkingBudget(request: TextRequest): number | undefined {
  const reasoning = request.reasoning;
  if (!reasoning || request.anthropic?.thinkingDisabled || request.anthropic?.betweenTools) return undefined;
  if (reasoning.adaptive && reasoning.maxTokens === undefined) return undefined;
  const budget = reasoning.maxTokens ?? (reasoning.effort === undefined ? undefined : effortBudgets[reasoning.effort]);
  if (budget === undefined) return undefined;
  if (budget < minimumThinkingBudget) throw invalidRequest(`'reasoning.max_tokens' must be at least ${minimumThinkingBudget} for this provider`, 'reasoning');
  if (request.maxTokens !== undefined && budget >= request.maxTokens) {
    throw invalidRequest(`the reasoning budget (${budget} tokens) must be less than 'max_tokens' (${request.maxTokens}) for this provider`, 'reasoning');
  }
  return budget;
}

/**
 * Tools and the choice among them. Converse has no `none`: the tools are then left out, unless
 * the conversation already holds tool calls or results, for which Converse requires `toolConfig`;
 * there they are sent and the model chooses. https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolChoice.html
 */
function convertTools(tools: ToolDefinition[] | undefined, choice: ToolChoice | undefined, messages: ConverseRequestBody['messages']): ConverseRequestBody['toolConfig'] {
  if (!tools || tools.length === 0) return undefined;
  if (choice === 'none' && !messages.some((message) => message.content.some(isToolBlock))) return undefined;
  const converted = tools.map(convertTool);
  const toolChoice = convertToolChoice(choice);
  return toolChoice ? { tools: converted, toolChoice } : { tools: converted };
}

function isToolBlock(block: ConverseContentBlock): boolean {
  return 'toolUse' in block || 'toolResult' in block;
}

function convertTool(tool: ToolDefinition): ConverseTool {
  return {
    toolSpec: {
      name: tool.name,
      ...(tool.description !== undefined && { description: tool.description }),
      inputSchema: { json: tool.parameters },
      ...(tool.strict !== undefined && { strict: tool.strict }),
    },
  };
}

function convertToolChoice(choice: ToolChoice | undefined): ConverseToolChoice | undefined {
  if (choice === undefined || choice === 'none') return undefined;
  if (choice === 'auto') return { auto: {} };
  if (choice === 'required') return { any: {} };
  return { tool: { name: choice.name } };
}

/**
 * Structured output: Converse's `outputConfig.textFormat` takes a JSON Schema (as text). It has no
 * schema-less JSON mode, so `json_object` is refused with what to send instead.
 * https://docs.aws.amazon.com/bedrock/latest/userguide/structured-output.html
 */
function convertResponseFormat(format: ResponseFormat | undefined): NonNullable<ConverseRequestBody['outputConfig']>['textFormat'] {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') {
    throw unsupportedParameter('response_format', 'json_object is not supported by Bedrock Converse, which has no JSON mode without a schema; send a json_schema');
  }
  return {
    type: 'json_schema',
    structure: { jsonSchema: { schema: JSON.stringify(format.schema), name: format.name, ...(format.description !== undefined && { description: format.description }) } },
  };
}
