/**
 * The part of Anthropic's Messages answer the simulator writes, typed from Anthropic's own
 * reference (https://docs.anthropic.com/en/api/messages, "Response"), not from the gateway's
 * types: the simulator is an independent check of the wire format, so a field the gateway gets
 * wrong must not be wrong here by construction.
 */

/** `stop_reason`: why the model stopped. */
export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal';

/** The content blocks the simulator answers with: text, or a client tool call. */
export type AnthropicContentBlock = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

/** `usage`: billing and rate-limit counts, with the cache breakdown Anthropic reports. */
export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  service_tier?: string;
}

/** A complete answer (`Message`). */
export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicContentBlock[];
  stop_reason: AnthropicStopReason | null;
  stop_sequence: string | null;
  usage?: AnthropicUsage;
}
