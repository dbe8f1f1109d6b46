/**
 * The Anthropic Messages wire format, defined once for the three places that speak it: the
 * `/v1/messages` style (which writes answers), the anthropic provider adapter (which writes
 * requests and reads answers) and the simulator (which writes answers as Anthropic does).
 * Request shapes and the answer shapes written (`Messages*`) are exact; the answer shapes read
 * from upstream (`Anthropic*` below) are the lenient view of the same wire, every field optional,
 * because upstream answers are parsed for the fields used and nothing else.
 * Reference: https://platform.claude.com/docs/en/api/messages and the `@anthropic-ai/sdk` types.
 */

/** `stop_reason` of an answer. */
export type MessagesStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal';

/** Anthropic's `web_search_result_location`, the citation kind that points at a web page. */
export interface MessagesCitation {
  type: 'web_search_result_location';
  url: string;
  title: string | null;
  cited_text: string;
  encrypted_index: string;
}

/** A content block of an answer, as written. */
export type MessagesContentBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'text'; text: string; citations?: MessagesCitation[] }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'server_tool_use'; id: string; name: 'web_search' | 'web_fetch'; input: Record<string, unknown> }
  | { type: 'web_search_tool_result'; tool_use_id: string; content: WebSearchResultBlock[] | { type: 'web_search_tool_result_error'; error_code: string } }
  | { type: 'web_fetch_tool_result'; tool_use_id: string; content: WebFetchResultBlock | { type: 'web_fetch_tool_error'; error_code: string } };

/** One result of a server web search. The gateway's own searches have no provider-encrypted content: it is ''. */
export interface WebSearchResultBlock {
  type: 'web_search_result';
  url: string;
  title: string;
  encrypted_content: string;
  page_age: string | null;
}

export interface WebFetchResultBlock {
  type: 'web_fetch_result';
  url: string;
  content: { type: 'document'; source: { type: 'text'; media_type: 'text/plain'; data: string }; title: string | null };
  retrieved_at: string;
}

/** `usage` as written; the gateway adds `cost` (USD), Anthropic its cache and tier details. */
export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens_details?: { thinking_tokens: number };
  service_tier?: string;
  /** Server tools run for this answer: Anthropic's count, or the gateway's own searches (contract §4a). */
  server_tool_use?: { web_search_requests: number; web_fetch_requests?: number };
  /** Beside the advisor tool: the model's own pass and each pass another model served (`advisor_message`, with its `model`). */
  iterations?: Array<{ type: string; model?: string; input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number }>;
  cost?: number;
}

/** A complete answer (`Message`), as written. */
export interface MessagesResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: MessagesContentBlock[];
  stop_reason: MessagesStopReason | null;
  stop_sequence: string | null;
  stop_details?: { type: string; [field: string]: unknown } | null;
  usage?: MessagesUsage;
}

export type AnthropicImageSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string };

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  /** Prompt caching: https://docs.claude.com/en/docs/build-with-claude/prompt-caching */
  cache_control?: { type: 'ephemeral'; ttl?: '5m' | '1h' };
}

export interface AnthropicImageBlock {
  type: 'image';
  source: AnthropicImageSource;
}

export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: Array<AnthropicTextBlock | AnthropicImageBlock>;
  is_error?: boolean;
}

export type AnthropicUserBlock = AnthropicTextBlock | AnthropicImageBlock | AnthropicToolResultBlock;
export type AnthropicAssistantBlock =
  | AnthropicTextBlock
  | AnthropicToolUseBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock;

export type AnthropicMessageParam =
  | { role: 'user'; content: AnthropicUserBlock[] }
  | { role: 'assistant'; content: AnthropicAssistantBlock[] };

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  strict?: boolean;
}

/** Anthropic's hosted web search: https://docs.claude.com/en/docs/agents-and-tools/tool-use/web-search-tool */
export interface AnthropicWebSearchTool {
  type: 'web_search_20250305';
  name: 'web_search';
  allowed_domains?: string[];
  blocked_domains?: string[];
  user_location?: { type: 'approximate'; city?: string; region?: string; country?: string; timezone?: string };
}

export type AnthropicToolChoice =
  | { type: 'auto' | 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface AnthropicMessagesBody {
  model: string;
  max_tokens: number;
  messages: AnthropicMessageParam[];
  system?: string | AnthropicTextBlock[];
  tools?: Array<AnthropicTool | AnthropicWebSearchTool>;
  tool_choice?: AnthropicToolChoice;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  thinking?:
    | { type: 'enabled'; budget_tokens: number; display?: 'summarized' | 'omitted' | 'updates'; block_binding?: Record<string, unknown> }
    | { type: 'adaptive'; display?: 'summarized' | 'omitted' | 'updates'; block_binding?: Record<string, unknown> }
    | { type: 'disabled' }
    | { type: 'between_tools' };
  metadata?: { user_id: string };
  /**
   * Structured output (https://docs.claude.com/en/docs/build-with-claude/structured-outputs), thinking
   * effort, and a task budget (https://platform.claude.com/docs/en/build-with-claude/task-budgets).
   */
  output_config?: {
    format?: { type: 'json_schema'; schema: Record<string, unknown> };
    effort?: 'low' | 'medium' | 'high' | 'xhigh' | 'max';
    task_budget?: Record<string, unknown>;
  };
  stream?: boolean;
  /** Anthropic-only fields a Messages client sent (context_management, container, cache_control …). */
  [field: string]: unknown;
}

/** Token counts; in `message_delta` events every field but `output_tokens` may be null or absent. */
export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
  /**
   * With server-side compaction, one entry per sampling pass (`type: "compaction"` or
   * `"message"`); the top-level counts are the last pass only, and every pass is billed.
   * https://platform.claude.com/docs/en/build-with-claude/compaction
   */
  iterations?: AnthropicUsage[] | null;
  /** Of an `iterations` entry: `compaction`, `message`, or `advisor_message` (the advisor tool's pass, with its `model`). */
  type?: string;
  model?: string;
}

/** Any content block of a response or `content_block_start` event; which fields are set depends on `type`. */
export interface AnthropicResponseBlock {
  type?: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  thinking?: string;
  signature?: string;
  data?: string;
  citations?: AnthropicCitation[] | null;
  /** Server-tool results: `web_search_tool_result` lists `{type: "web_search_result", url, title}` (or an error object). */
  content?: unknown;
}

/** A citation on a text block; `web_search_result_location` is the kind with a URL. */
export interface AnthropicCitation {
  type?: string;
  url?: string;
  title?: string | null;
  cited_text?: string;
  encrypted_index?: string;
}

export interface AnthropicMessage {
  id?: string;
  model?: string;
  content?: AnthropicResponseBlock[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  /** Set with `stop_reason: "refusal"`: `{type: "refusal", category, explanation}`. */
  stop_details?: AnthropicStopDetails | null;
  usage?: AnthropicUsage;
}

export interface AnthropicStopDetails {
  type?: string;
  category?: string | null;
  explanation?: string | null;
  [field: string]: unknown;
}

export interface AnthropicErrorObject {
  type?: string;
  message?: string;
}

/** One streaming event's data: https://platform.claude.com/docs/en/build-with-claude/streaming */
export interface AnthropicStreamEvent {
  type?: string;
  message?: AnthropicMessage;
  index?: number;
  content_block?: AnthropicResponseBlock;
  delta?: {
    type?: string;
    text?: string;
    partial_json?: string;
    thinking?: string;
    signature?: string;
    citation?: AnthropicCitation;
    stop_reason?: string | null;
    stop_sequence?: string | null;
    stop_details?: AnthropicStopDetails | null;
  };
  usage?: AnthropicUsage;
  error?: AnthropicErrorObject;
}
