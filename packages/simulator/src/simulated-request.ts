import type { SimulatorProtocol } from './simulator-types.js';

/** One input message reduced to what the simulator needs: its role and all of its text. */
export interface SimulatedMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  text: string;
}

export interface SimulatedTool {
  name: string;
  /** JSON Schema of the arguments, as the client sent it. */
  parameters: unknown;
}

export type SimulatedToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'tool'; name: string };

/** A request of any protocol, decoded into the shape the reply planner works on. */
export interface SimulatedRequest {
  protocol: SimulatorProtocol;
  model: string;
  stream: boolean;
  messages: SimulatedMessage[];
  tools: SimulatedTool[];
  toolChoice: SimulatedToolChoice;
  parallelToolCalls: boolean;
  maxTokens?: number;
  stopSequences: string[];
  /** A JSON Schema the answer must follow (structured output): the reply is a JSON value of it. */
  outputSchema?: unknown;
  /** JSON mode without a schema (OpenAI `response_format: json_object`, Gemini `responseMimeType: application/json`): the reply is a JSON object. */
  jsonMode?: boolean;
  /** OpenAI reports stream usage only when asked (`stream_options.include_usage`). */
  includeStreamUsage: boolean;
}
