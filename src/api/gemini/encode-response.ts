import type { TextResult } from '../../core/text-result.js';
import type { ResponseMeta } from '../shared/text-call.js';
import { encodeParts, type GeminiAnswerPart } from './encode-parts.js';
import { encodeUsage, type GeminiUsageMetadata } from './encode-usage.js';
import { mapFinishReason } from './map-finish-reason.js';

/** What `:generateContent` answers: Gemini's `GenerateContentResponse`, one candidate. */
export interface GeminiAnswer {
  candidates: Array<{ content: { parts: GeminiAnswerPart[]; role: 'model' }; finishReason?: string; index: 0 }>;
  usageMetadata?: GeminiUsageMetadata;
  modelVersion: string;
  responseId: string;
}

/** A complete result as Gemini's `GenerateContentResponse`; `cost` is nano-USD. */
export function encodeGeminiResponse(result: TextResult, meta: ResponseMeta, cost: bigint): GeminiAnswer {
  return {
    candidates: [{ content: { parts: encodeParts(result.content), role: 'model' }, finishReason: mapFinishReason(result.finishReason), index: 0 }],
    usageMetadata: encodeUsage(result.usage, cost),
    modelVersion: meta.model,
    responseId: meta.id,
  };
}
