import type { AssistantContentPart } from '../../core/content.js';
import type { TextResult } from '../../core/text-result.js';
import { createToolCallId } from './create-tool-call-id.js';
import type { GeminiCandidate, GeminiPart, GeminiResponse } from './gemini-wire-types.js';
import { mapFinishReason } from './map-finish-reason.js';
import { mapUsage } from './map-usage.js';
import { asObjects } from '../shared/lenient-json.js';

/**
 * `GenerateContentResponse` → canonical result, from the first candidate (the gateway never asks
 * for more). A thought signature on a text or function-call part becomes the signature of the
 * reasoning just before it (an empty reasoning part when there is none), the same shape the
 * stream produces with `reasoning-signature`; `convertMessages` hands it back to that part.
 * https://ai.google.dev/api/generate-content#generatecontentresponse
 */
export function convertResponse(response: GeminiResponse): TextResult {
  const candidate = asObjects<GeminiCandidate>(response.candidates)[0];
  const content: AssistantContentPart[] = [];
  let toolCalls = 0;
  for (const part of asObjects<GeminiPart>(candidate?.content?.parts)) {
    if (part.thought) {
      if (part.text) appendReasoning(content, part.text);
      applySignature(content, part.thoughtSignature);
      continue;
    }
    applySignature(content, part.thoughtSignature);
    if (part.functionCall) {
      const { id, name, args } = part.functionCall;
      const callId = createToolCallId(response.responseId, toolCalls++, id);
      content.push({ type: 'tool-call', id: callId, name, arguments: JSON.stringify(args ?? {}) });
    } else if (part.text) {
      appendText(content, part.text);
    }
  }
  // A prompt blocked before generation has no candidate at all, only `promptFeedback.blockReason`.
  const promptBlocked = candidate === undefined && response.promptFeedback?.blockReason !== undefined;
  const result: TextResult = {
    content,
    finishReason: promptBlocked ? 'content_filter' : mapFinishReason(candidate?.finishReason, toolCalls > 0),
    usage: mapUsage(response.usageMetadata),
  };
  if (response.responseId) result.providerResponseId = response.responseId;
  if (response.modelVersion) result.providerModel = response.modelVersion;
  return result;
}

function appendText(content: AssistantContentPart[], text: string): void {
  const last = content.at(-1);
  if (last?.type === 'text') last.text += text;
  else content.push({ type: 'text', text });
}

function appendReasoning(content: AssistantContentPart[], text: string): void {
  const last = content.at(-1);
  if (last?.type === 'reasoning' && !last.signature) last.text += text;
  else content.push({ type: 'reasoning', text });
}

function applySignature(content: AssistantContentPart[], signature: string | undefined): void {
  if (!signature) return;
  const last = content.at(-1);
  if (last?.type === 'reasoning' && !last.signature) last.signature = signature;
  else content.push({ type: 'reasoning', text: '', signature });
}
