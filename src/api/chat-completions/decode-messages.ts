import type { AssistantContentPart, AssistantMessage, CacheControl, Message, ToolCallPart } from '../../core/content.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { decodeReasoningDetails } from './decode-reasoning-details.js';
import { decodeCacheControl, decodeTextContent, decodeTextPart, decodeUserContent, readContentArray } from './decode-content-parts.js';
import { isAbsent, readArray, readObject, readString, rejectUnknownKeys, type JsonObject } from '../shared/read-json-fields.js';

// `name` (a participant's name; OpenRouter's AI SDK provider sends it) is a hint no provider
// protocol behind the gateway carries: checked, not forwarded.
// `cache_control` on a message (opencode and OpenRouter's AI SDK provider put it there) marks a
// breakpoint after the message's last part, as if that part carried it.
const roleContentKeys = new Set(['role', 'content', 'name', 'cache_control']);
const toolKeys = new Set(['role', 'content', 'tool_call_id', 'name', 'cache_control']);
/**
 * `refusal`, `reasoning`, `annotations` and `audio` appear because SDK users append the previous
 * response's `message` object verbatim to the next request's `messages`.
 */
const assistantKeys = new Set(['role', 'name', 'content', 'tool_calls', 'function_call', 'refusal', 'reasoning', 'reasoning_details', 'annotations', 'audio', 'cache_control']);
// `cache_control` on a tool call (opencode) is a hint: checked, not forwarded.
const toolCallKeys = new Set(['id', 'type', 'function', 'cache_control']);
const functionKeys = new Set(['name', 'arguments']);
const refusalPartKeys = new Set(['type', 'refusal']);

/**
 * Decodes `messages` into canonical messages. Tool results get the function's name from the
 * assistant call they answer (Gemini keys function responses by name).
 */
export function decodeMessages(value: unknown): Message[] {
  if (isAbsent(value)) throw invalidRequest("'messages' is required", 'messages');
  const entries = readArray(value, 'messages');
  if (entries.length === 0) throw invalidRequest("'messages' must contain at least one message", 'messages');
  const toolNames = new Map<string, string>();
  // A loop, not flatMap: V8 11's flatMap adds each element through a runtime call.
  const messages: Message[] = [];
  for (let index = 0; index < entries.length; index += 1) messages.push(...decodeMessage(entries[index], `messages[${index}]`, toolNames));
  return messages;
}

function decodeMessage(entry: unknown, field: string, toolNames: Map<string, string>): Message[] {
  const message = readObject(entry, field);
  if (!isAbsent(message.name)) readString(message.name, `${field}.name`);
  const decoded = decodeMessageBody(message, field, toolNames);
  if (!isAbsent(message.cache_control)) markLastPart(decoded, decodeCacheControl(message.cache_control, `${field}.cache_control`));
  return decoded;
}

/** Carries a message-level breakpoint to its last system or user text part (a hint elsewhere). */
function markLastPart(messages: Message[], cacheControl: CacheControl): void {
  const last = messages.at(-1);
  if (last?.role === 'system') last.cacheControl ??= cacheControl;
  if (last?.role === 'user') {
    const part = last.content.at(-1);
    if (part?.type === 'text') part.cacheControl ??= cacheControl;
  }
}

function decodeMessageBody(message: JsonObject, field: string, toolNames: Map<string, string>): Message[] {
  switch (message.role) {
    case 'system':
    case 'developer':
      rejectUnknownKeys(message, roleContentKeys, field);
      // One canonical system message per part keeps the client's boundaries; protocols with a
      // single system field join them.
      return decodeTextContent(message.content, `${field}.content`).map((part) => ({
        role: 'system',
        content: part.text,
        ...(part.cacheControl && { cacheControl: part.cacheControl }),
      }));
    case 'user':
      rejectUnknownKeys(message, roleContentKeys, field);
      return [{ role: 'user', content: decodeUserContent(message.content, `${field}.content`) }];
    case 'assistant':
      return [decodeAssistantMessage(message, field, toolNames)];
    case 'tool': {
      rejectUnknownKeys(message, toolKeys, field);
      const toolCallId = readString(message.tool_call_id, `${field}.tool_call_id`, { nonEmpty: true });
      const toolName = toolNames.get(toolCallId);
      return [{ role: 'tool', toolCallId, ...(toolName ? { toolName } : {}), content: decodeTextContent(message.content, `${field}.content`) }];
    }
    case 'function':
      throw unsupportedParameter(`${field}.role`, "value 'function' (legacy function calling) is not supported; use 'tool' messages");
    default:
      throw invalidRequest(`'${field}.role' must be one of system, developer, user, assistant, tool`, `${field}.role`);
  }
}

function decodeAssistantMessage(message: JsonObject, field: string, toolNames: Map<string, string>): AssistantMessage {
  rejectUnknownKeys(message, assistantKeys, field);
  if (!isAbsent(message.function_call)) {
    throw unsupportedParameter(`${field}.function_call`, 'is legacy function calling and is not supported; use tool_calls');
  }
  if (!isAbsent(message.audio)) throw unsupportedParameter(`${field}.audio`);
  if (!isAbsent(message.annotations)) readArray(message.annotations, `${field}.annotations`);
  const content: AssistantContentPart[] = [];
  // `reasoning_details` carries the same reasoning as `reasoning`, with its signatures.
  if (!isAbsent(message.reasoning_details)) {
    content.push(...decodeReasoningDetails(message.reasoning_details, `${field}.reasoning_details`));
  } else if (!isAbsent(message.reasoning)) {
    content.push({ type: 'reasoning', text: readString(message.reasoning, `${field}.reasoning`) });
  }
  if (!isAbsent(message.content)) content.push(...decodeAssistantText(message.content, `${field}.content`));
  if (!isAbsent(message.refusal)) content.push({ type: 'text', text: readString(message.refusal, `${field}.refusal`) });
  if (!isAbsent(message.tool_calls)) {
    readArray(message.tool_calls, `${field}.tool_calls`).forEach((entry, index) => {
      const call = decodeToolCall(entry, `${field}.tool_calls[${index}]`);
      toolNames.set(call.id, call.name);
      content.push(call);
    });
  }
  return { role: 'assistant', content };
}

/** Assistant content is a string or `text` / `refusal` parts; a refusal is what the model said. */
function decodeAssistantText(value: unknown, field: string): AssistantContentPart[] {
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }];
  return readContentArray(value, field).map((entry, index) => {
    const partField = `${field}[${index}]`;
    const part = readObject(entry, partField);
    if (part.type === 'text') return decodeTextPart(part, partField);
    if (part.type !== 'refusal') {
      throw unsupportedParameter(`${partField}.type`, `value '${String(part.type)}' is not supported (only text and refusal parts)`);
    }
    rejectUnknownKeys(part, refusalPartKeys, partField);
    return { type: 'text', text: readString(part.refusal, `${partField}.refusal`) };
  });
}

function decodeToolCall(entry: unknown, field: string): ToolCallPart {
  const call = readObject(entry, field);
  if (call.type !== 'function') {
    throw unsupportedParameter(`${field}.type`, `value '${String(call.type)}' is not supported (only 'function' tool calls)`);
  }
  rejectUnknownKeys(call, toolCallKeys, field);
  if (!isAbsent(call.cache_control)) decodeCacheControl(call.cache_control, `${field}.cache_control`);
  const fn = readObject(call.function, `${field}.function`);
  rejectUnknownKeys(fn, functionKeys, `${field}.function`);
  return {
    type: 'tool-call',
    id: readString(call.id, `${field}.id`, { nonEmpty: true }),
    name: readString(fn.name, `${field}.function.name`, { nonEmpty: true }),
    arguments: readString(fn.arguments, `${field}.function.arguments`),
  };
}
