import type { AssistantContentPart, ToolCallPart } from '../../core/content.js';
import type { TextResult } from '../../core/text-result.js';
import { createEstimatedUsage } from '../shared/create-estimated-usage.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { generateToolCallId } from './generate-tool-call-id.js';
import { asArray, asRecord, asString, type JsonRecord } from '../shared/lenient-json.js';
import { mapFinishReason } from './map-finish-reason.js';
import { mapUsage } from './map-usage.js';
import { mapInBandError } from './map-error.js';
import { readCitations } from './read-citations.js';
import { readMessageText } from './read-message-text.js';

/**
 * A Chat Completions response body (https://platform.openai.com/docs/api-reference/chat/object)
 * → canonical result: reasoning first, then text, then tool calls. Throws `UpstreamError` for an
 * error reported with a 2xx status (OpenRouter does) or an answer without a choice.
 */
export function convertChatCompletionResponse(raw: string, providerId: string): TextResult {
  const record = parseRecord(raw);
  if (!record) throw createProtocolError(providerId, 'answered with a body that is not a JSON object', raw);
  return convertRecord(record, providerId, () => raw);
}

/** The same for a body already parsed (a batch's output line); its text is made only for an error. */
export function convertChatCompletionObject(record: JsonRecord, providerId: string): TextResult {
  return convertRecord(record, providerId, () => JSON.stringify(record).slice(0, 2000));
}

function convertRecord(record: JsonRecord, providerId: string, rawText: () => string): TextResult {
  // Asked once without the text (the usual answer has no error), again with it for the error.
  if (mapInBandError(record, providerId, '')) throw mapInBandError(record, providerId, rawText())!;
  const choice = asRecord(asArray(record.choices)[0]);
  const message = asRecord(choice?.message);
  if (!choice || !message) throw createProtocolError(providerId, 'answered without a choice', rawText());

  const { text, reasoning } = readMessageText(message);
  const content: AssistantContentPart[] = [];
  if (reasoning) content.push({ type: 'reasoning', text: reasoning });
  if (text) {
    const citations = readCitations(record);
    content.push({ type: 'text', text, ...(citations && { citations }) });
  }
  for (const call of asArray(message.tool_calls)) {
    const part = convertToolCall(call);
    if (!part) throw createProtocolError(providerId, 'answered with a tool call that has no function name', rawText());
    content.push(part);
  }

  const result: TextResult = {
    content,
    finishReason: mapFinishReason(choice.finish_reason),
    usage: mapUsage(record.usage) ?? createEstimatedUsage(),
  };
  const id = asString(record.id);
  const model = asString(record.model);
  // vLLM names the stop string that matched (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html).
  const stopSequence = asString(choice.stop_reason);
  if (id) result.providerResponseId = id;
  if (model) result.providerModel = model;
  if (stopSequence && result.finishReason === 'stop') result.stopSequence = stopSequence;
  return result;
}

function convertToolCall(value: unknown): ToolCallPart | undefined {
  const call = asRecord(value);
  const fn = asRecord(call?.function);
  const name = asString(fn?.name);
  if (!name) return undefined;
  return { type: 'tool-call', id: asString(call?.id) || generateToolCallId(), name, arguments: asString(fn?.arguments) ?? '' };
}

function parseRecord(raw: string): JsonRecord | undefined {
  try {
    return asRecord(JSON.parse(raw));
  } catch {
    return undefined;
  }
}
