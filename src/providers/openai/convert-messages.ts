import type { AssistantMessage, ImagePart, Message, ToolResultMessage, UserContentPart } from '../../core/content.js';
import { invalidRequest } from '../../errors/gateway-error.js';
import type { ChatImagePart, ChatMessage, ChatTextPart, ChatToolCall } from './chat-completions-body.js';

/** Canonical messages → Chat Completions `messages`. */
export function convertToChatMessages(messages: readonly Message[]): ChatMessage[] {
  return messages.map(convertMessage);
}

function convertMessage(message: Message): ChatMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: convertUserContent(message.content) };
    case 'assistant':
      return convertAssistantMessage(message);
    case 'tool':
      return convertToolResult(message);
  }
}

/**
 * Text-only content goes as one string: DeepSeek and several other compatible servers accept
 * only string content, and clients such as Claude Code send many small text blocks.
 */
function convertUserContent(parts: readonly UserContentPart[]): string | Array<ChatTextPart | ChatImagePart> {
  return joinIfAllText(parts) ?? parts.map((part) => (part.type === 'text' ? part : convertImage(part)));
}

function convertImage(part: ImagePart): ChatImagePart {
  const { source } = part;
  const url = source.kind === 'url' ? source.url : `data:${source.mediaType};base64,${source.data}`;
  return { type: 'image_url', image_url: part.detail ? { url, detail: part.detail } : { url } };
}

function convertAssistantMessage(message: AssistantMessage): ChatMessage {
  const texts: string[] = [];
  const toolCalls: ChatToolCall[] = [];
  for (const part of message.content) {
    if (part.type === 'text') texts.push(part.text);
    // Servers that render a chat template JSON-parse the arguments (vLLM), so "" becomes "{}".
    if (part.type === 'tool-call') {
      toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments || '{}' } });
    }
    // Reasoning parts stay behind: Chat Completions has no input field for them, and DeepSeek
    // answers 400 when `reasoning_content` is sent back
    // (https://api-docs.deepseek.com/guides/reasoning_model).
  }
  if (toolCalls.length === 0) return { role: 'assistant', content: texts.join('\n') };
  return { role: 'assistant', content: texts.length > 0 ? texts.join('\n') : null, tool_calls: toolCalls };
}

/**
 * Chat Completions tool messages carry text only, and have no error flag: a failed call's text
 * says so itself. An image in a tool result is refused rather than dropped.
 */
function convertToolResult(message: ToolResultMessage): ChatMessage {
  const text = joinIfAllText(message.content);
  if (text === undefined) {
    throw invalidRequest('Tool results with images cannot be sent to this model: its provider accepts text-only tool results.', 'messages');
  }
  return { role: 'tool', tool_call_id: message.toolCallId, content: text };
}

function joinIfAllText(parts: readonly UserContentPart[]): string | undefined {
  const texts: string[] = [];
  for (const part of parts) {
    if (part.type !== 'text') return undefined;
    texts.push(part.text);
  }
  return texts.join('\n');
}
