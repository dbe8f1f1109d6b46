import type { AssistantMessage, ImageSource, Message, SystemMessage, UserContentPart } from '../../core/content.js';
import { invalidRequest } from '../../errors/gateway-error.js';
import type {
  AnthropicAssistantBlock,
  AnthropicImageBlock,
  AnthropicMessageParam,
  AnthropicTextBlock,
  AnthropicUserBlock,
} from '../../wire/anthropic/wire-types.js';

export interface AnthropicConversation {
  /**
   * Every system message, joined: Anthropic has one top-level `system` field. Text blocks
   * instead when a system message carries a cache breakpoint, which only a block can hold.
   */
  system?: string | AnthropicTextBlock[];
  messages: AnthropicMessageParam[];
}

/** Anthropic accepts only these image types: https://platform.claude.com/docs/en/build-with-claude/vision */
const imageMediaTypes = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * Canonical messages → Anthropic `system` + alternating user/assistant turns. Tool results
 * become `tool_result` blocks in a user turn; consecutive user-side messages share one turn,
 * with the tool results first, as Anthropic requires:
 * https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls
 */
export function convertToAnthropicMessages(messages: Message[]): AnthropicConversation {
  const system: SystemMessage[] = [];
  const turns: AnthropicMessageParam[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'system') {
      system.push(message);
    } else if (message.role === 'assistant') {
      const content = convertAssistantContent(message, index);
      // An assistant message holding only unsigned reasoning has nothing Anthropic accepts.
      if (content.length > 0) appendTurn(turns, { role: 'assistant', content });
    } else if (message.role === 'user') {
      appendTurn(turns, { role: 'user', content: message.content.map((part) => withCacheControl(part, convertUserPart(part, index))) });
    } else {
      const content = message.content.map((part) => convertUserPart(part, index));
      appendTurn(turns, {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: message.toolCallId, ...(content.length > 0 && { content }), ...(message.isError && { is_error: true }) }],
      });
    }
  });
  return { ...(system.length > 0 && { system: convertSystem(system) }), messages: turns };
}

function convertSystem(messages: SystemMessage[]): string | AnthropicTextBlock[] {
  if (!messages.some((message) => message.cacheControl)) return messages.map((message) => message.content).join('\n\n');
  return messages.map((message) => ({ type: 'text', text: message.content, ...(message.cacheControl && { cache_control: message.cacheControl }) }));
}

function appendTurn(turns: AnthropicMessageParam[], turn: AnthropicMessageParam): void {
  const last = turns.at(-1);
  if (last?.role === 'assistant' && turn.role === 'assistant') {
    last.content.push(...turn.content);
  } else if (last?.role === 'user' && turn.role === 'user') {
    const merged = [...last.content, ...turn.content];
    last.content = [...merged.filter((block) => block.type === 'tool_result'), ...merged.filter((block) => block.type !== 'tool_result')];
  } else {
    turns.push(turn);
  }
}

function convertAssistantContent(message: AssistantMessage, index: number): AnthropicAssistantBlock[] {
  const blocks: AnthropicAssistantBlock[] = [];
  for (const part of message.content) {
    if (part.type === 'text') {
      // OpenAI-style clients send `content: ""` beside tool calls; Anthropic rejects empty text blocks.
      if (part.text !== '') blocks.push({ type: 'text', text: part.text });
    } else if (part.type === 'tool-call') {
      blocks.push({ type: 'tool_use', id: part.id, name: part.name, input: parseToolInput(part.arguments, part.name, index) });
    } else if (part.redactedData !== undefined) {
      blocks.push({ type: 'redacted_thinking', data: part.redactedData });
    } else if (part.signature) {
      blocks.push({ type: 'thinking', thinking: part.text, signature: part.signature });
    }
    // Reasoning without a signature (from another provider) is dropped: Anthropic rejects
    // unsigned thinking blocks. https://platform.claude.com/docs/en/build-with-claude/extended-thinking
  }
  return blocks;
}

function parseToolInput(text: string, name: string, index: number): Record<string, unknown> {
  if (text.trim() === '') return {};
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    throw invalidRequest(`messages[${index}]: the arguments of tool call '${name}' are not valid JSON`, 'messages');
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalidRequest(`messages[${index}]: the arguments of tool call '${name}' must be a JSON object`, 'messages');
  }
  return input as Record<string, unknown>;
}

/** A canonical cache breakpoint on a user text part becomes Anthropic's `cache_control` on its block. */
function withCacheControl(part: UserContentPart, block: AnthropicTextBlock | AnthropicImageBlock): AnthropicTextBlock | AnthropicImageBlock {
  return part.type === 'text' && part.cacheControl && block.type === 'text' ? { ...block, cache_control: part.cacheControl } : block;
}

function convertUserPart(part: UserContentPart, index: number): AnthropicTextBlock | AnthropicImageBlock {
  if (part.type === 'text') return { type: 'text', text: part.text };
  return { type: 'image', source: convertImageSource(part.source, index) };
}

function convertImageSource(source: ImageSource, index: number): AnthropicImageBlock['source'] {
  if (source.kind === 'url' && !source.url.startsWith('data:')) return { type: 'url', url: source.url };
  const { mediaType, data } = source.kind === 'base64' ? source : parseDataUrl(source.url, index);
  if (!imageMediaTypes.has(mediaType)) {
    throw invalidRequest(`messages[${index}]: image type '${mediaType}' is not supported (use jpeg, png, gif or webp)`, 'messages');
  }
  return { type: 'base64', media_type: mediaType, data };
}

/** `data:image/png;base64,AAAA` → its media type and base64 payload. */
function parseDataUrl(url: string, index: number): { mediaType: string; data: string } {
  const comma = url.indexOf(',');
  const header = comma === -1 ? '' : url.slice('data:'.length, comma);
  if (!header.endsWith(';base64')) {
    throw invalidRequest(`messages[${index}]: an image data URL must be base64 encoded`, 'messages');
  }
  // Parameters such as `;charset=…` may sit between the media type and `;base64`.
  const mediaType = header.slice(0, header.indexOf(';')).toLowerCase();
  return { mediaType, data: url.slice(comma + 1) };
}
