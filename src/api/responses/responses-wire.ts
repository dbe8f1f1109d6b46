/**
 * The wire shapes of OpenAI's Responses API that this gateway produces, kept to what we emit.
 * Reference: https://platform.openai.com/docs/api-reference/responses/object
 * The tests check these against the official `openai` SDK types, so drift shows up there.
 */

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';
export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface OutputTextPart {
  type: 'output_text';
  text: string;
  annotations: UrlCitationAnnotation[];
  logprobs: never[];
}

/** A cited source; indices are UTF-16 offsets into the part's `text`. */
export interface UrlCitationAnnotation {
  type: 'url_citation';
  url: string;
  title: string;
  start_index: number;
  end_index: number;
}

/** The model's (or provider's) refusal, said instead of an answer. */
export interface RefusalPart {
  type: 'refusal';
  refusal: string;
}

export interface MessageItem {
  id: string;
  type: 'message';
  status: ItemStatus;
  role: 'assistant';
  content: Array<OutputTextPart | RefusalPart>;
}

export interface FunctionCallItem {
  id: string;
  type: 'function_call';
  status: ItemStatus;
  call_id: string;
  name: string;
  arguments: string;
  /** Set when the function came from a `namespace` tool. */
  namespace?: string;
}

export interface SummaryTextPart {
  type: 'summary_text';
  text: string;
}

export interface ReasoningItem {
  id: string;
  type: 'reasoning';
  summary: SummaryTextPart[];
  /**
   * Carries a provider's reasoning signature (Anthropic thinking) so that a client which sends
   * its output items back as input keeps multi-turn reasoning valid.
   */
  encrypted_content?: string;
}

/** A web search the gateway ran (contract §4a), as OpenAI's hosted `web_search` tool reports one. */
export interface WebSearchCallItem {
  id: string;
  type: 'web_search_call';
  status: 'completed' | 'failed';
  action: { type: 'search'; query: string; sources: { type: 'url'; url: string }[] };
}

/** An image the gateway had the configured image model make (contract §4a), as OpenAI's `image_generation` tool reports one. */
export interface ImageGenerationCallItem {
  id: string;
  type: 'image_generation_call';
  status: 'completed' | 'failed';
  /** The image, base64-encoded; null when it failed. */
  result: string | null;
}

export type OutputItem = MessageItem | FunctionCallItem | ReasoningItem | WebSearchCallItem | ImageGenerationCallItem;

export interface ResponseUsageWire {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
  /** Searches the gateway ran (contract §4a); a gateway extension. */
  server_tool_use?: { web_search_requests: number };
  /**
   * The passes another model served inside the call (Anthropic's advisor tool), apart from the
   * counts above, which are the requested model's own; a gateway extension, priced in `cost`.
   */
  advisor_usage?: Array<{ model: string } & Pick<ResponseUsageWire, 'input_tokens' | 'input_tokens_details' | 'output_tokens' | 'total_tokens'>>;
  /** USD; a gateway extension, as in OpenRouter's usage accounting. */
  cost?: number;
}

export interface ResponseErrorWire {
  code: string;
  message: string;
}

export interface IncompleteDetails {
  reason: 'max_output_tokens' | 'content_filter';
}

export interface FunctionToolWire {
  type: 'function';
  name: string;
  description: string | null;
  parameters: Record<string, unknown> | null;
  strict: boolean | null;
}

export interface NamespaceToolWire {
  type: 'namespace';
  name: string;
  description: string;
  tools: FunctionToolWire[];
}

/** Tools as a Response repeats them: functions, namespaces, and the hosted web search as sent. */
export type ToolWire = FunctionToolWire | NamespaceToolWire | WebSearchToolWire | ToolSearchToolWire;

export interface ToolSearchToolWire {
  type: 'tool_search';
  execution?: 'server';
}

export interface WebSearchToolWire {
  type: 'web_search' | 'web_search_2025_08_26' | 'web_search_preview' | 'web_search_preview_2025_03_11';
  search_context_size?: 'low' | 'medium' | 'high';
}

export type ToolChoiceWire = 'auto' | 'none' | 'required' | { type: 'function'; name: string };

export type TextFormatWire =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; description?: string; strict: boolean | null };

export interface ReasoningWire {
  effort: 'none' | 'minimal' | 'low' | 'medium' | 'high' | null;
  summary: 'auto' | 'concise' | 'detailed' | null;
}

export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  background: boolean;
  completed_at: number | null;
  error: ResponseErrorWire | null;
  incomplete_details: IncompleteDetails | null;
  instructions: string | null;
  max_output_tokens: number | null;
  model: string;
  output: OutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  reasoning: ReasoningWire;
  store: boolean;
  temperature: number;
  text: { format: TextFormatWire };
  tool_choice: ToolChoiceWire;
  tools: ToolWire[];
  top_p: number;
  presence_penalty: number;
  frequency_penalty: number;
  top_logprobs: number;
  max_tool_calls: number | null;
  truncation: 'disabled' | 'auto';
  usage: ResponseUsageWire | null;
  service_tier: 'default';
  safety_identifier: string | null;
  prompt_cache_key: string | null;
  user?: string;
  metadata: Record<string, string>;
}
