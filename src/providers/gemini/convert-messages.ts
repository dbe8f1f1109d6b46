import type { AssistantMessage, Message, ToolCallPart, ToolResultMessage, UserContentPart } from '../../core/content.js';
import { invalidRequest } from '../../errors/gateway-error.js';
import { convertImagePart } from './convert-image-part.js';
import type { GeminiContent, GeminiPart, GeminiRequest } from './gemini-wire-types.js';

/**
 * The value Google documents for replaying a function call whose thought signature was lost
 * (e.g. by a client that speaks a style with no field for it). Gemini 3 answers 400 to an
 * unsigned function call in the current turn; this makes it skip that check.
 * https://ai.google.dev/gemini-api/docs/thought-signatures
 */
export const skipThoughtSignatureValidator = 'skip_thought_signature_validator';

export interface ConvertMessagesOptions {
  /** Sign each model turn's first function call with the skip value when it has no signature. */
  requireSignedFunctionCalls?: boolean;
}

/**
 * Canonical messages → `systemInstruction` + `contents`. Gemini knows two roles, so tool
 * results become `user` turns, and consecutive turns of one role are merged: parallel function
 * responses must arrive together in the turn after the calls.
 */
export function convertMessages(messages: Message[], options: ConvertMessagesOptions = {}): Pick<GeminiRequest, 'contents' | 'systemInstruction'> {
  const system: Array<{ text: string }> = [];
  const contents: GeminiContent[] = [];
  // Gemini matches function responses by name; canonical tool results refer to the call id.
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'system') {
      if (message.content) system.push({ text: message.content });
    } else if (message.role === 'user') {
      appendTurn(contents, 'user', message.content.flatMap(convertUserPart));
    } else if (message.role === 'assistant') {
      appendTurn(contents, 'model', convertAssistantMessage(message, toolNames, options));
    } else {
      appendTurn(contents, 'user', convertToolResult(message, toolNames));
    }
  }
  return system.length > 0 ? { systemInstruction: { parts: system }, contents } : { contents };
}

function appendTurn(contents: GeminiContent[], role: GeminiContent['role'], parts: GeminiPart[]): void {
  if (parts.length === 0) return;
  const last = contents.at(-1);
  if (last?.role === role) last.parts.push(...parts);
  else contents.push({ role, parts });
}

function convertUserPart(part: UserContentPart): GeminiPart[] {
  if (part.type === 'image') return [convertImagePart(part)];
  return part.text ? [{ text: part.text }] : [];
}

/**
 * Gemini puts a thought signature on the part that follows the hidden thinking (a function
 * call or text), and the response decoder turns it into a reasoning part just before that part.
 * So a signed reasoning part hands its signature to the next part sent. Reasoning text itself is
 * not sent: Gemini reads only the signatures of earlier thinking, and unsigned reasoning (or
 * Anthropic's redacted data) carries nothing it can use.
 */
function convertAssistantMessage(message: AssistantMessage, toolNames: Map<string, string>, options: ConvertMessagesOptions): GeminiPart[] {
  const parts: GeminiPart[] = [];
  let signature: string | undefined;
  for (const part of message.content) {
    if (part.type === 'reasoning') {
      signature = part.signature || signature;
      continue;
    }
    if (part.type === 'text' && !part.text) continue;
    const converted: GeminiPart = part.type === 'text' ? { text: part.text } : convertToolCall(part, toolNames);
    if (signature) converted.thoughtSignature = signature;
    signature = undefined;
    parts.push(converted);
  }
  // Gemini may send the signature of a text answer on a trailing empty part, which is not kept.
  const last = parts.at(-1);
  if (signature && last && !last.thoughtSignature) last.thoughtSignature = signature;
  const firstCall = parts.find((part) => part.functionCall);
  if (options.requireSignedFunctionCalls && firstCall && !firstCall.thoughtSignature) {
    firstCall.thoughtSignature = skipThoughtSignatureValidator;
  }
  return parts;
}

function convertToolCall(part: ToolCallPart, toolNames: Map<string, string>): GeminiPart {
  toolNames.set(part.id, part.name);
  if (!part.arguments.trim()) return { functionCall: { name: part.name, args: {} } };
  let args: unknown;
  try {
    args = JSON.parse(part.arguments);
  } catch {
    throw invalidRequest(`Tool call '${part.id}' has arguments that are not valid JSON.`, 'messages');
  }
  if (!isPlainObject(args)) throw invalidRequest(`Tool call '${part.id}' must have a JSON object as arguments.`, 'messages');
  return { functionCall: { name: part.name, args } };
}

/**
 * Gemini's `response` is an object; by its convention `output` holds the result and `error`
 * a failure, and an object without those keys is the output as a whole.
 * https://ai.google.dev/api/caching#FunctionResponse
 */
function convertToolResult(message: ToolResultMessage, toolNames: Map<string, string>): GeminiPart[] {
  const name = message.toolName ?? toolNames.get(message.toolCallId);
  if (!name) {
    throw invalidRequest(`Tool result '${message.toolCallId}' answers no earlier tool call, and Gemini needs the function name.`, 'messages');
  }
  const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  // Images returned by a tool follow the response in the same turn (not every model takes them inside it).
  const images = message.content.flatMap((part) => (part.type === 'image' ? [convertImagePart(part)] : []));
  const response = message.isError ? { error: text } : (parseJsonObject(text) ?? { output: text });
  return [{ functionResponse: { name, response } }, ...images];
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
