import type { ToolNamespaces } from './tool-namespaces.js';
import type { ToolWire, ReasoningWire, TextFormatWire, ToolChoiceWire } from './responses-wire.js';

/**
 * The request fields that a Response object repeats back to the client, already in wire shape,
 * each with its effective value. Where the client sent nothing, the value is the default that
 * applied: the gateway forwards no sampling or penalty setting the client did not give, so the
 * provider's neutral defaults ran — reported as OpenAI's (temperature 1, top_p 1, penalties 0);
 * tool_choice `auto`, parallel tool calls on, plain text format, the `default` service tier.
 */
export interface ResponsesEcho {
  instructions: string | null;
  tools: ToolWire[];
  /** Flat names of namespaced functions → what the client called them (never sent as is). */
  toolNamespaces?: ToolNamespaces;
  tool_choice: ToolChoiceWire;
  temperature: number;
  top_p: number;
  presence_penalty: number;
  frequency_penalty: number;
  top_logprobs: number;
  max_output_tokens: number | null;
  max_tool_calls: number | null;
  parallel_tool_calls: boolean;
  text: { format: TextFormatWire };
  reasoning: ReasoningWire;
  metadata: Record<string, string>;
  /** The tier that served the request: the gateway promises none beyond the provider's default. */
  service_tier: 'default';
  safety_identifier: string | null;
  prompt_cache_key: string | null;
  store: boolean;
  previous_response_id: string | null;
  user?: string;
  /** `auto` when the client asked the gateway to drop the oldest turns that do not fit (truncate-to-context.ts). */
  truncation: 'auto' | 'disabled';
}

export function createDefaultEcho(): ResponsesEcho {
  return {
    instructions: null,
    tools: [],
    tool_choice: 'auto',
    temperature: 1,
    top_p: 1,
    presence_penalty: 0,
    frequency_penalty: 0,
    top_logprobs: 0,
    max_output_tokens: null,
    max_tool_calls: null,
    parallel_tool_calls: true,
    text: { format: { type: 'text' } },
    reasoning: { effort: null, summary: null },
    metadata: {},
    service_tier: 'default',
    safety_identifier: null,
    prompt_cache_key: null,
    store: false,
    previous_response_id: null,
    truncation: 'disabled',
  };
}
