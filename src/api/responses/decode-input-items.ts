import type { AssistantContentPart, Message, ReasoningPart } from '../../core/content.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { decodeAssistantContent, decodeSystemContent, decodeUserContent } from './decode-content-parts.js';
import { isAbsent, type JsonObject, readArray, readEnum, readObject, rejectUnknownKeys } from '../shared/read-json-fields.js';
import { expectString } from './validate-shape.js';
import { joinNamespacedName } from './tool-namespaces.js';
import { readRedactedReasoning } from '../shared/redacted-reasoning.js';
import { compactionSystemText, decodeCompactionContent } from './compaction-item.js';

// `id` and `status` appear when a client sends the previous response's output items back;
// `parsed_arguments` when those items came from the SDK's stream helper (it derives it from `arguments`).
const messageKeys = new Set(['type', 'role', 'content', 'id', 'status', 'phase']);
const functionCallKeys = new Set(['type', 'call_id', 'name', 'arguments', 'id', 'status', 'parsed_arguments', 'namespace']);
const functionCallOutputKeys = new Set(['type', 'call_id', 'output', 'id', 'status']);
const reasoningKeys = new Set(['type', 'id', 'summary', 'content', 'encrypted_content', 'status']);
const webSearchCallKeys = new Set(['type', 'id', 'status', 'action']);
const reasoningTextKeys = new Set(['type', 'text']);
const compactionKeys = new Set(['type', 'id', 'encrypted_content', 'created_by']);

/**
 * Decodes `input` into canonical messages. Reasoning, assistant messages and function calls
 * that follow one another are one model turn in the Responses API (it lists them as separate
 * items), so they join a single assistant message: providers such as Anthropic need the thinking
 * block and its tool calls in the same turn.
 */
export function decodeInputItems(input: unknown): Message[] {
  if (isAbsent(input)) throw invalidRequest("'input' is required", 'input');
  if (typeof input === 'string') return [{ role: 'user', content: [{ type: 'text', text: input }] }];
  const items = readArray(input, 'input');
  if (items.length === 0) throw invalidRequest("'input' must not be empty", 'input');
  const messages: Message[] = [];
  const toolNames = new Map<string, string>();
  items.forEach((entry, index) => {
    const path = `input[${index}]`;
    const item = readObject(entry, path);
    // EasyInputMessage may omit `type`; a `role` marks it as a message.
    const type = item.type ?? (item.role === undefined ? undefined : 'message');
    switch (type) {
      case 'message':
        return decodeMessageItem(item, path, messages);
      case 'function_call': {
        rejectUnknownKeys(item, functionCallKeys, path);
        const id = expectString(item.call_id, `${path}.call_id`);
        const ownName = expectString(item.name, `${path}.name`);
        // A call to a namespaced function goes back to the provider under its flat name.
        const name = isAbsent(item.namespace) ? ownName : joinNamespacedName(expectString(item.namespace, `${path}.namespace`), ownName);
        toolNames.set(id, name);
        return appendAssistantParts(messages, [{ type: 'tool-call', id, name, arguments: expectString(item.arguments, `${path}.arguments`) }]);
      }
      case 'function_call_output': {
        rejectUnknownKeys(item, functionCallOutputKeys, path);
        const toolCallId = expectString(item.call_id, `${path}.call_id`);
        if (isAbsent(item.output)) throw invalidRequest(`'${path}.output' is required`, `${path}.output`);
        const toolName = toolNames.get(toolCallId);
        // OpenAI's rule too: an output answers a call made earlier in the conversation; no provider takes an orphan.
        if (toolName === undefined) throw invalidRequest(`No tool call found for function call output with call_id '${toolCallId.slice(0, 100)}'`, `${path}.call_id`);
        messages.push({ role: 'tool', toolCallId, toolName, content: decodeUserContent(item.output, `${path}.output`) });
        return;
      }
      case 'reasoning': {
        const part = decodeReasoningItem(item, path);
        if (part) appendAssistantParts(messages, [part]);
        return;
      }
      case undefined:
        throw invalidRequest(`'${path}.type' is required`, `${path}.type`);
      case 'web_search_call':
        // The record of a search the provider ran on an earlier turn: what it found is already in
        // the assistant message that follows, and no provider takes another's search call back.
        rejectUnknownKeys(item, webSearchCallKeys, path);
        return;
      case 'compaction': {
        // The gateway's own compaction (POST /responses/compact): its summary, as system text, for any protocol.
        rejectUnknownKeys(item, compactionKeys, path);
        const summary = decodeCompactionContent(expectString(item.encrypted_content, `${path}.encrypted_content`), `${path}.encrypted_content`);
        messages.push({ role: 'system', content: compactionSystemText(summary) });
        return;
      }
      case 'item_reference':
        throw unsupportedParameter(`${path}.type`, "'item_reference' is not supported; items are not addressable by id here, send the items themselves or continue with previous_response_id");
      default:
        throw unsupportedParameter(`${path}.type`, `'${String(type)}' is not supported; expected message, function_call, function_call_output, reasoning, compaction or web_search_call`);
    }
  });
  return messages;
}

function decodeMessageItem(item: JsonObject, path: string, messages: Message[]): void {
  rejectUnknownKeys(item, messageKeys, path);
  const role = readEnum(item.role, `${path}.role`, ['user', 'system', 'developer', 'assistant'] as const);
  if (isAbsent(item.content)) throw invalidRequest(`'${path}.content' is required`, `${path}.content`);
  const contentPath = `${path}.content`;
  if (role === 'user') messages.push({ role: 'user', content: decodeUserContent(item.content, contentPath) });
  else if (role === 'assistant') appendAssistantParts(messages, decodeAssistantContent(item.content, contentPath));
  else messages.push({ role: 'system', content: decodeSystemContent(item.content, contentPath) });
}

/**
 * A reasoning item sent back as history. Items without text or signature are skipped: OpenAI
 * returns such empty items when no summary was requested, and an empty thinking block would be
 * refused by providers that validate them.
 */
function decodeReasoningItem(item: JsonObject, path: string): ReasoningPart | undefined {
  rejectUnknownKeys(item, reasoningKeys, path);
  const summary = readArray(item.summary ?? [], `${path}.summary`).map((entry, index) => readReasoningText(entry, `${path}.summary[${index}]`, 'summary_text'));
  const content = isAbsent(item.content)
    ? []
    : readArray(item.content, `${path}.content`).map((entry, index) => readReasoningText(entry, `${path}.content[${index}]`, 'reasoning_text'));
  // Full reasoning text, when present, is closer to what the model produced than its summary.
  const text = (content.length > 0 ? content : summary).join('\n\n');
  const signature = isAbsent(item.encrypted_content) ? undefined : expectString(item.encrypted_content, `${path}.encrypted_content`);
  if (text === '' && signature === undefined) return undefined;
  const redactedData = signature === undefined ? undefined : readRedactedReasoning(signature);
  if (redactedData !== undefined) return { type: 'reasoning', text: '', redactedData };
  return { type: 'reasoning', text, ...(signature === undefined ? {} : { signature }) };
}

function readReasoningText(entry: unknown, path: string, type: 'summary_text' | 'reasoning_text'): string {
  const part = readObject(entry, path);
  rejectUnknownKeys(part, reasoningTextKeys, path);
  if (part.type !== type) throw invalidRequest(`'${path}.type' must be '${type}'`, `${path}.type`);
  return expectString(part.text, `${path}.text`);
}

function appendAssistantParts(messages: Message[], parts: AssistantContentPart[]): void {
  const last = messages.at(-1);
  if (last?.role === 'assistant') last.content.push(...parts);
  else messages.push({ role: 'assistant', content: parts });
}
