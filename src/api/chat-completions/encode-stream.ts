import type { StreamError, StreamPart } from '../../core/stream-part.js';
import type { ResponseMeta } from '../shared/text-call.js';
import { encodeAnnotation, type ChatAnnotation } from './encode-annotations.js';
import { redactedFormat, type ReasoningDetail } from './encode-reasoning-details.js';
import { encodeUsage } from './encode-usage.js';
import { mapFinishReason, type ChatFinishReason } from './map-finish-reason.js';
import { clientErrorType } from '../../errors/client-error-type.js';

type ChunkDelta =
  | { role: 'assistant'; content: ''; refusal: null }
  | { content: string }
  | { reasoning: string; reasoning_details: [ReasoningDetail] }
  | { reasoning_details: [ReasoningDetail] }
  | { refusal: string }
  | { annotations: ChatAnnotation[] }
  | { tool_calls: [{ index: number; id?: string; type?: 'function'; function: { name?: string; arguments: string } }] }
  | Record<string, never>;

interface ChunkChoice {
  index: 0;
  delta: ChunkDelta;
  finish_reason: ChatFinishReason | null;
  logprobs: null;
}

export const done = 'data: [DONE]\n\n';

/**
 * Canonical stream parts → OpenAI `chat.completion.chunk` SSE frames, each a complete
 * `data: …\n\n` string, ending with `data: [DONE]`. After the finish chunk comes one chunk with
 * `choices: []` and the usage (with OpenRouter's `cost`), which is sent whether or not the client
 * asked for `stream_options.include_usage`. A failure ends the stream in-band: a chunk with
 * `finish_reason: "error"` and a top-level `error` object, as OpenRouter does; the OpenAI SDK
 * raises it as an `APIError`.
 */
export async function* encodeChatCompletionsStream(parts: AsyncIterable<StreamPart>, meta: ResponseMeta): AsyncGenerator<string> {
  // One chunk object, refilled for every frame: it is serialized at once, so each delta costs
  // only its own small object and the frame string.
  const choice: ChunkChoice = { index: 0, delta: {}, finish_reason: null, logprobs: null };
  const template = { id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, choices: [choice] };
  const chunk = (delta: ChunkDelta, finishReason: ChatFinishReason | null = null): string => {
    choice.delta = delta;
    choice.finish_reason = finishReason;
    return frame(template);
  };
  let started = false;
  /**
   * `index` of the current reasoning block in `reasoning_details`: a signature or a redacted
   * block completes one, and the next reasoning starts the next (OpenRouter merges deltas by it).
   */
  let reasoningIndex = 0;
  /** Text length so far, for annotation offsets; annotations go out together before the finish chunk. */
  let textLength = 0;
  const annotations: ChatAnnotation[] = [];
  for await (const part of parts) {
    if (!started && part.type !== 'error') {
      started = true;
      yield chunk({ role: 'assistant', content: '', refusal: null });
    }
    switch (part.type) {
      case 'text-delta':
        textLength += part.text.length;
        if (part.text) yield chunk({ content: part.text });
        break;
      case 'citation':
        // Sent once, whole: the openai SDK's stream helper keeps only the last `annotations` delta.
        annotations.push(encodeAnnotation(part.citation, part.textLength === undefined ? 0 : textLength - part.textLength, textLength));
        break;
      case 'reasoning-delta':
        if (part.text) {
          yield chunk({ reasoning: part.text, reasoning_details: [{ type: 'reasoning.text', text: part.text, format: 'unknown', index: reasoningIndex }] });
        }
        break;
      case 'reasoning-signature':
        yield chunk({ reasoning_details: [{ type: 'reasoning.text', text: '', signature: part.signature, format: 'unknown', index: reasoningIndex++ }] });
        break;
      case 'reasoning-redacted':
        yield chunk({ reasoning_details: [{ type: 'reasoning.encrypted', data: part.data, format: redactedFormat, index: reasoningIndex++ }] });
        break;
      case 'tool-call-start':
        yield chunk({ tool_calls: [{ index: part.index, id: part.id, type: 'function', function: { name: part.name, arguments: '' } }] });
        break;
      case 'tool-call-delta':
        if (part.argumentsDelta) yield chunk({ tool_calls: [{ index: part.index, function: { arguments: part.argumentsDelta } }] });
        break;
      case 'finish':
        if (annotations.length > 0) yield chunk({ annotations });
        if (part.stopDetails?.type === 'refusal' && typeof part.stopDetails.explanation === 'string' && part.stopDetails.explanation) {
          yield chunk({ refusal: part.stopDetails.explanation });
        }
        yield chunk({}, mapFinishReason(part.finishReason));
        yield frame({ id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, choices: [], usage: encodeUsage(part.usage, part.cost) });
        yield done;
        return;
      case 'error':
        yield errorFrame(part.error, meta);
        yield done;
        return;
      // `start` needs nothing beyond the role chunk.
      case 'start':
        break;
    }
  }
  // Every canonical stream ends with `finish` or `error`; one that does not was cut short.
  yield errorFrame({ code: 'internal_error', message: 'The generation stream ended unexpectedly', status: 500 }, meta);
  yield done;
}

/** The in-band error chunk that ends a failed stream (OpenRouter's shape); `[DONE]` follows it. */
export function errorFrame(error: StreamError, meta: ResponseMeta): string {
  return frame({
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta: {}, finish_reason: 'error', logprobs: null }],
    error: {
      code: error.code,
      message: error.message,
      status: error.status,
      type: clientErrorType('openai', error.status, error.code),
      metadata: { request_id: meta.id },
    },
  });
}

function frame(payload: object): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}
