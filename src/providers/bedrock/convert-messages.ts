import { createHash } from 'node:crypto';
import type { AssistantMessage, CacheControl, ImageSource, Message, SystemMessage, UserContentPart } from '../../core/content.js';
import { invalidRequest } from '../../errors/gateway-error.js';
import type { ConverseCachePoint, ConverseContentBlock, ConverseImageBlock, ConverseImageFormat, ConverseMessage, ConverseSystemBlock } from './wire-types.js';

export interface ConverseConversation {
  system?: ConverseSystemBlock[];
  messages: ConverseMessage[];
}

/** Converse's image formats: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageBlock.html */
const imageFormats: Record<string, ConverseImageFormat> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };

/**
 * Canonical messages → Converse `system` blocks and alternating user/assistant turns. Tool results
 * are `toolResult` blocks of a user turn, ahead of the turn's other blocks; a prompt-cache
 * breakpoint (`cacheControl`) is a `cachePoint` block after the text it ends.
 * https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-call.html
 */
export function convertToConverseMessages(messages: Message[], options: { shortToolIds?: boolean } = {}): ConverseConversation {
  const toolId = options.shortToolIds ? shortToolId : (id: string) => id;
  const system: SystemMessage[] = [];
  const turns: ConverseMessage[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'system') {
      system.push(message);
    } else if (message.role === 'assistant') {
      const content = convertAssistantContent(message, index, toolId);
      if (content.length > 0) appendTurn(turns, { role: 'assistant', content });
    } else if (message.role === 'user') {
      appendTurn(turns, { role: 'user', content: message.content.flatMap((part) => withCachePoint(convertUserPart(part, index), part.type === 'text' ? part.cacheControl : undefined)) });
    } else {
      const content = message.content.map((part) => convertUserPart(part, index));
      appendTurn(turns, {
        role: 'user',
        content: [{ toolResult: { toolUseId: toolId(message.toolCallId), content, ...(message.isError && { status: 'error' as const }) } }],
      });
    }
  });
  trimPrefill(turns);
  return { ...(system.length > 0 && { system: system.flatMap((message) => withCachePoint({ text: message.content }, message.cacheControl)) }), messages: turns };
}

/**
 * A conversation that ends with an assistant turn asks the model to continue it (a prefill);
 * Bedrock refuses trailing whitespace there, so the last text block loses it.
 */
function trimPrefill(turns: ConverseMessage[]): void {
  const last = turns.at(-1);
  const block = last?.role === 'assistant' ? last.content.at(-1) : undefined;
  if (block && 'text' in block) block.text = block.text.trimEnd();
}

/**
 * Mistral models on Bedrock take only tool call ids of nine letters and digits, which Bedrock's
 * own (`tooluse_…`) are not. Each id is replaced by nine hex digits of its hash, the same for the
 * call and its result, so different ids stay apart.
 */
export function shortToolId(id: string): string {
  return /^[a-zA-Z0-9]{9}$/.test(id) ? id : createHash('sha256').update(id).digest('hex').slice(0, 9);
}

function withCachePoint<Block extends ConverseContentBlock | ConverseSystemBlock>(block: Block, cacheControl: CacheControl | undefined): Array<Block | ConverseCachePoint> {
  if (!cacheControl) return [block];
  return [block, { cachePoint: { type: 'default', ...(cacheControl.ttl && { ttl: cacheControl.ttl }) } }];
}

function appendTurn(turns: ConverseMessage[], turn: ConverseMessage): void {
  const last = turns.at(-1);
  if (last?.role !== turn.role) {
    turns.push(turn);
    return;
  }
  const merged = [...last.content, ...turn.content];
  last.content = turn.role === 'user' ? [...merged.filter((block) => 'toolResult' in block), ...merged.filter((block) => !('toolResult' in block))] : merged;
}

function convertAssistantContent(message: AssistantMessage, index: number, toolId: (id: string) => string): ConverseContentBlock[] {
  const blocks: ConverseContentBlock[] = [];
  for (const part of message.content) {
    if (part.type === 'text') {
      // OpenAI-style clients send `content: ""` beside tool calls; Converse refuses blank text blocks.
      if (part.text.trim() !== '') blocks.push({ text: part.text });
    } else if (part.type === 'tool-call') {
      blocks.push({ toolUse: { toolUseId: toolId(part.id), name: part.name, input: parseToolInput(part.arguments, part.name, index) } });
    } else if (part.redactedData !== undefined) {
      blocks.push({ reasoningContent: { redactedContent: part.redactedData } });
    } else if (part.signature) {
      blocks.push({ reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } });
    }
    // Reasoning without a signature (another protocol's) is dropped: Claude on Bedrock refuses
    // unsigned reasoning blocks, and no model needs its earlier reasoning back.
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

function convertUserPart(part: UserContentPart, index: number): { text: string } | ConverseImageBlock {
  if (part.type === 'text') return { text: part.text };
  return { image: convertImage(part.source, index) };
}

/**
 * Converse takes an image as its bytes (base64 in the JSON) or as an S3 location; it fetches no
 * web URL, so one is refused with what to send instead.
 */
function convertImage(source: ImageSource, index: number): ConverseImageBlock['image'] {
  if (source.kind === 'url' && source.url.startsWith('s3://')) return { format: formatOf(guessFromPath(source.url), index), source: { s3Location: { uri: source.url } } };
  if (source.kind === 'url' && !source.url.startsWith('data:')) {
    throw invalidRequest(`messages[${index}]: Bedrock Converse does not fetch image URLs; send the image inline (a base64 data URL) or as an s3:// location`, 'messages');
  }
  const { mediaType, data } = source.kind === 'base64' ? source : parseDataUrl(source.url, index);
  return { format: formatOf(mediaType, index), source: { bytes: data } };
}

function formatOf(mediaType: string, index: number): ConverseImageFormat {
  const format = imageFormats[mediaType.toLowerCase()];
  if (!format) throw invalidRequest(`messages[${index}]: image type '${mediaType}' is not supported (use png, jpeg, gif or webp)`, 'messages');
  return format;
}

function guessFromPath(url: string): string {
  const extension = url.slice(url.lastIndexOf('.') + 1).toLowerCase();
  return extension === 'jpg' ? 'image/jpeg' : `image/${extension}`;
}

function parseDataUrl(url: string, index: number): { mediaType: string; data: string } {
  const comma = url.indexOf(',');
  const header = comma === -1 ? '' : url.slice('data:'.length, comma);
  if (!header.endsWith(';base64')) throw invalidRequest(`messages[${index}]: an image data URL must be base64 encoded`, 'messages');
  return { mediaType: header.slice(0, header.indexOf(';')).toLowerCase(), data: url.slice(comma + 1) };
}
