import type { AssistantContentPart } from '../../core/content.js';
import type { TextResult } from '../../core/text-result.js';
import { asObjects, asRecord } from '../shared/lenient-json.js';
import { mapConverseFinishReason, readStopSequence } from './map-finish-reason.js';
import { mapConverseUsage } from './map-usage.js';
import type { ConverseResponse, ConverseResponseBlock } from './wire-types.js';

/**
 * Converse answer → canonical result. Converse gives no response id and no model name (the
 * model is the one in the URL). Block kinds the gateway never asks for (citations, guard content)
 * are skipped.
 */
export function convertConverseResponse(response: ConverseResponse): TextResult {
  const content: AssistantContentPart[] = [];
  for (const block of asObjects<ConverseResponseBlock>(response.output?.message?.content)) {
    const part = convertBlock(block);
    if (part) content.push(part);
  }
  const stopSequence = readStopSequence(asRecord(response.additionalModelResponseFields));
  return {
    content,
    finishReason: mapConverseFinishReason(response.stopReason),
    ...(stopSequence !== undefined && { stopSequence }),
    usage: mapConverseUsage(asRecord(response.usage)),
  };
}

function convertBlock(block: ConverseResponseBlock): AssistantContentPart | undefined {
  if (typeof block.text === 'string') return { type: 'text', text: block.text };
  if (block.toolUse) {
    const input = block.toolUse.input;
    return { type: 'tool-call', id: block.toolUse.toolUseId ?? '', name: block.toolUse.name ?? '', arguments: JSON.stringify(input ?? {}) };
  }
  const reasoning = block.reasoningContent;
  if (typeof reasoning?.redactedContent === 'string') return { type: 'reasoning', text: '', redactedData: reasoning.redactedContent };
  if (reasoning?.reasoningText) {
    const { text, signature } = reasoning.reasoningText;
    return { type: 'reasoning', text: text ?? '', ...(signature && { signature }) };
  }
  return undefined;
}
