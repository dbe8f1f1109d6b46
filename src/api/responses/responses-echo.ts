import type { ToolNamespaces } from './tool-namespaces.js';
import type { ToolWire, ReasoningWire, TextFormatWire, ToolChoiceWire } from './responses-wire.js';

/**
 * The request fields that a Response object repeats back to the client, already in wire shape.
 * Defaults are OpenAI's (tool_choice `auto`, parallel tool calls on, plain text format);
 * sampling values the client did not set stay null rather than claiming the upstream's default.
 */
export interface ResponsesEcho {
  instructions: string | null;
  tools: ToolWire[];
  /** Flat names of namespaced functions → what the client called them (never sent as is). */
  toolNamespaces?: ToolNamespaces;
  tool_choice: ToolChoiceWire;
  temperature: number | null;
  top_p: number | null;
  max_output_tokens: number | null;
  parallel_tool_calls: boolean;
  text: { format: TextFormatWire };
  reasoning: ReasoningWire;
  metadata: Record<string, string>;
  user?: string;
  /** `auto` when the client asked the gateway to drop the oldest turns that do not fit (truncate-to-context.ts). */
  truncation: 'auto' | 'disabled';
}

export function createDefaultEcho(): ResponsesEcho {
  return {
    instructions: null,
    tools: [],
    tool_choice: 'auto',
    temperature: null,
    top_p: null,
    max_output_tokens: null,
    parallel_tool_calls: true,
    text: { format: { type: 'text' } },
    reasoning: { effort: null, summary: null },
    metadata: {},
    truncation: 'disabled',
  };
}
