/**
 * The JSON of AWS Bedrock's Converse and ConverseStream APIs, as far as the gateway sends or
 * reads it: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html and
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html (the
 * shapes of `@aws-sdk/client-bedrock-runtime`'s `ConverseRequest`). Each content block is a union
 * with exactly one member set. Answers are read leniently: every field may be missing.
 */

export type ConverseImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export interface ConverseCachePoint {
  cachePoint: { type: 'default'; ttl?: '5m' | '1h' };
}

export type ConverseToolResultContent = { text: string } | { json: unknown } | { image: ConverseImageBlock['image'] };

export interface ConverseImageBlock {
  image: { format: ConverseImageFormat; source: { bytes: string } | { s3Location: { uri: string } } };
}

export type ConverseContentBlock =
  | { text: string }
  | ConverseImageBlock
  | { toolUse: { toolUseId: string; name: string; input: unknown } }
  | { toolResult: { toolUseId: string; content: ConverseToolResultContent[]; status?: 'success' | 'error' } }
  | { reasoningContent: { reasoningText: { text: string; signature?: string } } | { redactedContent: string } }
  | ConverseCachePoint;

export interface ConverseMessage {
  role: 'user' | 'assistant';
  content: ConverseContentBlock[];
}

export type ConverseSystemBlock = { text: string } | ConverseCachePoint;

export interface ConverseTool {
  toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> }; strict?: boolean };
}

export type ConverseToolChoice = { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };

export interface ConverseRequestBody {
  messages: ConverseMessage[];
  system?: ConverseSystemBlock[];
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: { tools: ConverseTool[]; toolChoice?: ConverseToolChoice };
  /** Fields of the model's own request body that Converse has none for (Claude's `thinking`, `top_k` …). */
  additionalModelRequestFields?: Record<string, unknown>;
  outputConfig?: { textFormat?: { type: 'json_schema'; structure: { jsonSchema: { schema: string; name?: string; description?: string } } } };
}

export interface ConverseUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

/** A content block of an answer: the request's union members, read leniently. */
export interface ConverseResponseBlock {
  text?: string;
  toolUse?: { toolUseId?: string; name?: string; input?: unknown };
  reasoningContent?: { reasoningText?: { text?: string; signature?: string }; redactedContent?: string };
}

export interface ConverseResponse {
  output?: { message?: { role?: string; content?: ConverseResponseBlock[] } };
  stopReason?: string;
  usage?: ConverseUsage;
  metrics?: { latencyMs?: number };
  additionalModelResponseFields?: Record<string, unknown>;
}

/** The payloads of ConverseStream's events, keyed by the frame's `:event-type`. */
export interface ConverseStreamPayloads {
  messageStart: { role?: string };
  contentBlockStart: { contentBlockIndex?: number; start?: { toolUse?: { toolUseId?: string; name?: string } } };
  contentBlockDelta: {
    contentBlockIndex?: number;
    delta?: { text?: string; toolUse?: { input?: string }; reasoningContent?: { text?: string; signature?: string; redactedContent?: string } };
  };
  contentBlockStop: { contentBlockIndex?: number };
  messageStop: { stopReason?: string; additionalModelResponseFields?: Record<string, unknown> };
  metadata: { usage?: ConverseUsage; metrics?: { latencyMs?: number } };
}
