import type { ReasoningOptions, ResponseFormat, TextRequest, ToolChoice, ToolDefinition } from '../../core/text-request.js';
import { unsupportedParameter } from '../../errors/gateway-error.js';
import { refuseAnthropicOnly } from '../shared/refuse-anthropic-only.js';
import { cleanFunctionSchema } from './clean-function-schema.js';
import { convertMessages, type ConvertMessagesOptions } from './convert-messages.js';
import type { GeminiFunctionDeclaration, GeminiGenerationConfig, GeminiRequest } from './gemini-wire-types.js';

/**
 * Thinking budgets for the canonical efforts, within the range every Gemini 2.5 model takes
 * (Flash caps at 24576). `minimal` turns thinking off where the model allows it; models that
 * always think (2.5 Pro) answer 400 to 0, which names the problem instead of hiding it.
 * https://ai.google.dev/gemini-api/docs/thinking#set-budget
 */
const thinkingBudgetByEffort: Record<NonNullable<ReasoningOptions['effort']>, number> = {
  minimal: 0,
  low: 1024,
  medium: 8192,
  high: 24576,
};

export type ConvertRequestOptions = ConvertMessagesOptions;

/** Canonical request → `GenerateContentRequest` body. https://ai.google.dev/api/generate-content */
export function convertRequest(request: TextRequest, options: ConvertRequestOptions = {}): GeminiRequest {
  // An end-user id is a hint: Gemini has no field for it, so it goes no further than the gateway.
  refuseAnthropicOnly(request.anthropic, 'Gemini models');
  const body: GeminiRequest = convertMessages(request.messages, options);
  if (request.tools && request.tools.length > 0) body.tools = [{ functionDeclarations: request.tools.map(convertTool) }];
  // The hosted web search is Gemini's Google Search grounding; its options have no Gemini knob.
  // Routing sends a domain filter only to a search that takes one: never drop it here.
  if (request.webSearch?.allowedDomains || request.webSearch?.blockedDomains) {
    throw unsupportedParameter('web_search', 'domain filters are not supported by Gemini models: googleSearch has no domain filter in the Gemini API');
  }
  if (request.webSearch) body.tools = [...(body.tools ?? []), { googleSearch: {} }];
  if (request.toolChoice !== undefined) body.toolConfig = { functionCallingConfig: convertToolChoice(request.toolChoice) };
  const generationConfig = convertGenerationConfig(request);
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  return body;
}

function convertTool(tool: ToolDefinition): GeminiFunctionDeclaration {
  const declaration: GeminiFunctionDeclaration = { name: tool.name };
  if (tool.description) declaration.description = tool.description;
  const parameters = cleanFunctionSchema(tool.parameters, tool.name);
  if (parameters) declaration.parameters = parameters;
  return declaration;
}

/** https://ai.google.dev/gemini-api/docs/function-calling#function_calling_modes */
function convertToolChoice(choice: ToolChoice): NonNullable<GeminiRequest['toolConfig']>['functionCallingConfig'] {
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'none') return { mode: 'NONE' };
  if (choice === 'required') return { mode: 'ANY' };
  return { mode: 'ANY', allowedFunctionNames: [choice.name] };
}

function convertGenerationConfig(request: TextRequest): GeminiGenerationConfig {
  const config: GeminiGenerationConfig = {
    temperature: request.temperature,
    topP: request.topP,
    topK: request.topK,
    maxOutputTokens: request.maxTokens,
    stopSequences: request.stop && request.stop.length > 0 ? request.stop : undefined,
    seed: request.seed,
    presencePenalty: request.presencePenalty,
    frequencyPenalty: request.frequencyPenalty,
    ...convertResponseFormat(request.responseFormat),
    thinkingConfig: request.reasoning ? convertReasoning(request.reasoning) : undefined,
  };
  return Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined));
}

/** `responseJsonSchema` takes JSON Schema as it is (unlike `responseSchema`, an OpenAPI subset). */
function convertResponseFormat(format: ResponseFormat | undefined): GeminiGenerationConfig {
  if (format?.type === 'json_object') return { responseMimeType: 'application/json' };
  if (format?.type === 'json_schema') return { responseMimeType: 'application/json', responseJsonSchema: format.schema };
  return {};
}

/**
 * Adaptive thinking is Gemini's dynamic budget (-1); `display: omitted` keeps the thoughts out of
 * the answer, and `summarized` or `updates` (Claude's short progress notes) ask for them: Gemini's
 * thought summaries are what it has of either.
 */
function convertReasoning(reasoning: ReasoningOptions): NonNullable<GeminiGenerationConfig['thinkingConfig']> {
  const includeThoughts = reasoning.display !== 'omitted';
  if (reasoning.adaptive && reasoning.effort === undefined) return { thinkingBudget: -1, includeThoughts };
  const thinkingBudget = reasoning.maxTokens ?? (reasoning.effort ? thinkingBudgetByEffort[reasoning.effort] : undefined);
  return thinkingBudget === undefined ? { includeThoughts } : { thinkingBudget, includeThoughts };
}
