import type { Message } from './content.js';

/** A function the model may call. `parameters` is a JSON Schema object. */
export interface ToolDefinition {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  strict?: boolean;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; name: string };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; description?: string; strict?: boolean };

/**
 * A hosted web search the provider runs itself (OpenAI `web_search_options`, Anthropic's server
 * tool `web_search_20250305`, Gemini's `googleSearch` grounding). Routing sends it only to
 * endpoints whose `supported_parameters` list `web_search`.
 */
export interface WebSearchOptions {
  contextSize?: 'low' | 'medium' | 'high';
  /**
   * Domain filters: only these domains, or never these. Only Anthropic's search takes them, so
   * the decoders make them a routing requirement that only anthropic-wire endpoints meet.
   */
  allowedDomains?: string[];
  blockedDomains?: string[];
  userLocation?: { city?: string; country?: string; region?: string; timezone?: string };
}

export interface ReasoningOptions {
  effort?: 'minimal' | 'low' | 'medium' | 'high';
  /** Token budget for reasoning (Anthropic `thinking.budget_tokens`, Gemini `thinkingBudget`). */
  maxTokens?: number;
  /** The model decides how much to think (Anthropic `thinking.type: "adaptive"`, Gemini's dynamic budget). */
  adaptive?: boolean;
  /**
   * How thinking is shown (Anthropic `thinking.display`): `summarized` text, `omitted` (think, but
   * return no thinking text) or `updates` (short progress updates, Anthropic's beta).
   */
  display?: 'summarized' | 'omitted' | 'updates';
}

/**
 * What an Anthropic-style client asked for that only Anthropic's API has: body fields forwarded
 * as they came (`context_management`, `container`, top-level `cache_control`, …) and the
 * `anthropic-beta` header's betas. Other protocols ignore them or refused them earlier, as the
 * Messages field table says.
 */
export interface AnthropicOptions {
  body: Record<string, unknown>;
  betas: string[];
  /**
   * `output_config.effort` as the client sent it, `xhigh` and `max` included (only Claude has
   * them; `reasoning.effort` holds `high`). Anthropic's effort governs the whole answer (its length
   * and tool calls, and thinking where there is thinking): it goes to Anthropic as
   * `output_config.effort`, never as a thinking budget.
   */
  effort?: 'low' | 'medium' | 'high' | 'xhigh' | 'max';
  /**
   * `thinking: {type: "disabled"}`: sent as such to Anthropic. `reasoning` is unset, even beside an
   * effort, so no protocol is asked to think.
   */
  thinkingDisabled?: true;
  /**
   * `thinking: {type: "between_tools"}`: thinking off, and the short progress notes Claude writes
   * between tool calls come back as thinking blocks. `reasoning` is unset, so other protocols get
   * thinking off, as for `disabled`.
   */
  betweenTools?: true;
  /** `thinking.block_binding` as sent: what Anthropic does with a sent-back thinking block that fails its conversation check. */
  blockBinding?: Record<string, unknown>;
  /** `output_config.task_budget` as sent: an advisory token budget for a whole agentic loop. */
  taskBudget?: Record<string, unknown>;
}

/**
 * The canonical text generation request. Decoders fill only what the client sent; adapters
 * encode only what is set. Nothing here is provider specific.
 */
export interface TextRequest {
  messages: Message[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  seed?: number;
  stop?: string[];
  responseFormat?: ResponseFormat;
  reasoning?: ReasoningOptions;
  /** The caller's end-user identifier, forwarded where the protocol has a field for it. */
  user?: string;
  /**
   * The end-user id recorded on the request log: `safety_identifier`, else `user` (Chat
   * Completions, Responses), `metadata.user_id` (Messages). Never a routing requirement.
   */
  endUser?: string;
  webSearch?: WebSearchOptions;
  /**
   * Responses `truncation: "auto"`: when the input does not fit the context window, the oldest
   * turns after the instructions are dropped (the gateway does it, see truncate-to-context.ts).
   */
  truncation?: 'auto';
  /** OpenAI's prompt cache key: forwarded to OpenAI, and the key of sticky routing. */
  promptCacheKey?: string;
  /** Set by the Messages style only: see `AnthropicOptions`. */
  anthropic?: AnthropicOptions;
  stream: boolean;
}

/**
 * Names of the canonical request parameters, as listed in a catalog endpoint's
 * `supported_parameters`. Decoders map their style's field names onto these.
 */
export type CanonicalParameter =
  | 'max_tokens'
  | 'temperature'
  | 'top_p'
  | 'top_k'
  | 'frequency_penalty'
  | 'presence_penalty'
  | 'seed'
  | 'stop'
  | 'tools'
  | 'tool_choice'
  | 'parallel_tool_calls'
  | 'response_format'
  | 'reasoning'
  | 'user'
  | 'web_search';
