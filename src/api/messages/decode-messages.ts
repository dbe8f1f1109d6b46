import type { AssistantContentPart, Message, SystemMessage, ToolResultMessage, UserContentPart } from '../../core/content.js';
import { invalidRequest } from '../../errors/gateway-error.js';
import {
  isAbsent, isJsonObject, readArray, readBoolean, readObject, readString, rejectUnknownKeys, type JsonObject,
} from '../shared/read-json-fields.js';
import { checkCacheControl, decodeImageBlock, decodeTextBlock, decodeToolResultContent, unsupportedBlockType } from './decode-content-blocks.js';

const messageKeys = new Set(['role', 'content']);
const toolUseKeys = new Set(['type', 'id', 'name', 'input', 'cache_control', 'caller']);
const toolResultKeys = new Set(['type', 'tool_use_id', 'content', 'is_error', 'cache_control']);

/** `system`: a string, or an array of text blocks (one canonical system message each). */
export function decodeSystem(value: unknown, field = 'system'): SystemMessage[] {
  if (typeof value === 'string') return value === '' ? [] : [{ role: 'system', content: value }];
  return readBlocks(value, field).map((block, index) => {
    const blockField = `${field}[${index}]`;
    if (block.type !== 'text') throw unsupportedBlockType(block, blockField, 'only text blocks in a system prompt');
    return { role: 'system', content: decodeTextBlock(block, blockField).text };
  });
}

/**
 * Decodes `messages`. A user turn's `tool_result` blocks become canonical `tool` messages, placed
 * before the rest of that turn's content; they take the tool's name from the `tool_use` they answer.
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
  rejectUnknownKeys(message, messageKeys, field);
  if (message.role === 'user') return decodeUserTurn(message.content, `${field}.content`, toolNames);
  if (message.role === 'assistant') return [{ role: 'assistant', content: decodeAssistantTurn(message.content, `${field}.content`, toolNames) }];
  // The Messages API also takes system instructions inline, between turns.
  if (message.role === 'system') return decodeSystem(message.content, `${field}.content`);
  throw invalidRequest(`'${field}.role' must be one of user, assistant, system`, `${field}.role`);
}

function decodeUserTurn(value: unknown, field: string, toolNames: Map<string, string>): Message[] {
  if (typeof value === 'string') return [{ role: 'user', content: [{ type: 'text', text: value }] }];
  const results: ToolResultMessage[] = [];
  const content: UserContentPart[] = [];
  readBlocks(value, field).forEach((block, index) => {
    const blockField = `${field}[${index}]`;
    if (block.type === 'text') content.push(decodeTextBlock(block, blockField));
    else if (block.type === 'image') content.push(decodeImageBlock(block, blockField));
    else if (block.type === 'tool_result') results.push(decodeToolResult(block, blockField, toolNames));
    else throw unsupportedBlockType(block, blockField, 'a user turn takes text, image and tool_result blocks');
  });
  return content.length > 0 ? [...results, { role: 'user', content }] : results;
}

function decodeToolResult(block: JsonObject, field: string, toolNames: Map<string, string>): ToolResultMessage {
  rejectUnknownKeys(block, toolResultKeys, field);
  checkCacheControl(block.cache_control, `${field}.cache_control`);
  const toolCallId = readString(block.tool_use_id, `${field}.tool_use_id`, { nonEmpty: true });
  const result: ToolResultMessage = { role: 'tool', toolCallId, content: decodeToolResultContent(block.content, `${field}.content`) };
  const toolName = toolNames.get(toolCallId);
  if (toolName) result.toolName = toolName;
  if (!isAbsent(block.is_error)) result.isError = readBoolean(block.is_error, `${field}.is_error`);
  return result;
}

function decodeAssistantTurn(value: unknown, field: string, toolNames: Map<string, string>): AssistantContentPart[] {
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }];
  return readBlocks(value, field).flatMap((block, index): AssistantContentPart | AssistantContentPart[] => {
    const blockField = `${field}[${index}]`;
    switch (block.type) {
      case 'text':
        return decodeTextBlock(withoutSearchCitations(block), blockField);
      case 'server_tool_use':
      case 'web_search_tool_result':
      case 'web_fetch_tool_result':
        // The record of a web search or fetch run on an earlier turn (by the provider or by the
        // gateway, contract §4a): what it found is in the text that follows, and no provider takes
        // another's server tool call back, so it is not sent on.
        if (typeof block.id !== 'string' && typeof block.tool_use_id !== 'string') throw invalidRequest(`'${blockField}' needs its id`, blockField);
        return [];
      case 'thinking':
        rejectUnknownKeys(block, new Set(['type', 'thinking', 'signature']), blockField);
        return { type: 'reasoning', text: readString(block.thinking, `${blockField}.thinking`), signature: readString(block.signature, `${blockField}.signature`) };
      case 'redacted_thinking':
        rejectUnknownKeys(block, new Set(['type', 'data']), blockField);
        return { type: 'reasoning', text: '', redactedData: readString(block.data, `${blockField}.data`, { nonEmpty: true }) };
      case 'tool_use': {
        rejectUnknownKeys(block, toolUseKeys, blockField);
        checkCacheControl(block.cache_control, `${blockField}.cache_control`);
        checkDirectCaller(block.caller, `${blockField}.caller`);
        const id = readString(block.id, `${blockField}.id`, { nonEmpty: true });
        const name = readString(block.name, `${blockField}.name`, { nonEmpty: true });
        toolNames.set(id, name);
        return { type: 'tool-call', id, name, arguments: JSON.stringify(readObject(block.input, `${blockField}.input`)) };
      }
      default:
        throw unsupportedBlockType(block, blockField, 'an assistant turn takes text, thinking, redacted_thinking and tool_use blocks');
    }
  });
}

/**
 * An earlier answer's text cites the web search results it used (`web_search_result_location`):
 * the citations point at results that are not sent on (see the server tool blocks above), so they
 * are dropped with them; other citation kinds stay refused.
 */
function withoutSearchCitations(block: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(block.citations) || block.citations.length === 0) return block;
  if (!block.citations.every((citation) => isJsonObject(citation) && citation.type === 'web_search_result_location')) return block;
  const { citations: _citations, ...rest } = block;
  return rest;
}

/** Answers echo `caller: {type: 'direct'}` on tool_use blocks; other callers are server-side tools. */
function checkDirectCaller(value: unknown, field: string): void {
  if (isAbsent(value)) return;
  if (!isJsonObject(value) || value.type !== 'direct' || Object.keys(value).length !== 1) {
    throw invalidRequest(`'${field}' must be {"type": "direct"}: tool calls made by server tools are not supported`, field);
  }
}

function readBlocks(value: unknown, field: string): JsonObject[] {
  if (!Array.isArray(value)) throw invalidRequest(`'${field}' must be a string or an array of content blocks`, field);
  return value.map((entry, index) => readObject(entry, `${field}[${index}]`));
}
