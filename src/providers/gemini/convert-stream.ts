import type { StreamPart } from '../../core/stream-part.js';
import type { SseEvent } from '../shared/parse-sse.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { toUpstreamError } from '../shared/send-request.js';
import { toErrorPart, type StreamConverterOptions } from '../shared/stream-converter.js';
import { UpstreamError } from '../../errors/upstream-error.js';
import { createArgumentsAssembler } from './assemble-partial-arguments.js';
import { createToolCallId } from './create-tool-call-id.js';
import type { GeminiCandidate, GeminiPart, GeminiResponse, GeminiUsageMetadata } from './gemini-wire-types.js';
import { mapError } from './map-error.js';
import { mapFinishReason } from './map-finish-reason.js';
import { mapUsage } from './map-usage.js';
import { asObjects } from '../shared/lenient-json.js';

/**
 * `streamGenerateContent?alt=sse` events → canonical parts. Each `data:` is a whole
 * `GenerateContentResponse` holding only the new output: text parts are deltas, a function call
 * arrives whole, `usageMetadata` is cumulative so the latest one counts. `start` comes with the
 * first chunk; `finish` only when the body ends, as usage may follow the finish reason.
 * With streamed function-call arguments (Gemini 3), a call opens with a named part marked
 * `willContinue`, its arguments follow as `partialArgs` fragments in unnamed parts, and a part
 * without `willContinue` closes it: the gateway assembles them into one named call.
 * https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
export async function* convertStream(events: AsyncIterable<SseEvent>, options: StreamConverterOptions): AsyncGenerator<StreamPart> {
  const { providerId } = options;
  let responseId: string | undefined;
  let started = false;
  let toolCalls = 0;
  let finishReason: string | undefined;
  let promptBlocked = false;
  let usage: GeminiUsageMetadata | undefined;
  let openCall: { index: number; assembler: ReturnType<typeof createArgumentsAssembler> } | undefined;
  const closeCall = (): StreamPart[] => {
    if (!openCall) return [];
    const part: StreamPart = { type: 'tool-call-delta', index: openCall.index, argumentsDelta: openCall.assembler.toJson() };
    openCall = undefined;
    return [part];
  };
  try {
    for await (const event of events) {
      const chunk = readChunk(providerId, event.data);
      if (chunk instanceof UpstreamError) {
        yield toErrorPart(chunk, options);
        return;
      }
      if (!started) {
        started = true;
        responseId = chunk.responseId;
        const start: StreamPart = { type: 'start', providerResponseId: chunk.responseId, providerModel: chunk.modelVersion };
        // Gemini counts the prompt in its first chunk already: the input side is known from here
        // (a Messages client reads it from `message_start`); output is counted at the end.
        const prompt = chunk.usageMetadata?.promptTokenCount;
        if (typeof prompt === 'number' && prompt > 0) {
          const { reasoningTokens: _reasoning, ...counted } = mapUsage(chunk.usageMetadata);
          start.usage = { ...counted, completionTokens: 0 };
        }
        yield start;
      }
      usage = chunk.usageMetadata ?? usage;
      if (chunk.promptFeedback?.blockReason) promptBlocked = true;
      const candidate = asObjects<GeminiCandidate>(chunk.candidates)[0];
      for (const part of asObjects<GeminiPart>(candidate?.content?.parts)) {
        const call = part.functionCall;
        if (call && openCall && !call.name) {
          // A fragment of the call being streamed, or its end.
          if (call.partialArgs) openCall.assembler.add(call.partialArgs);
          if (!call.willContinue) yield* closeCall();
          continue;
        }
        yield* closeCall();
        if (call?.name && call.willContinue && call.args === undefined) {
          openCall = { index: toolCalls, assembler: createArgumentsAssembler() };
          if (call.partialArgs) openCall.assembler.add(call.partialArgs);
        }
        for (const streamPart of convertPart(part, responseId, toolCalls, openCall !== undefined)) {
          if (streamPart.type === 'tool-call-start') toolCalls += 1;
          yield streamPart;
        }
      }
      finishReason = candidate?.finishReason ?? finishReason;
    }
  } catch (error) {
    yield toErrorPart(toUpstreamError(providerId, error), options);
    return;
  }
  // A streamed call whose closing part never came still ends with the stream.
  yield* closeCall();
  if (finishReason === undefined && !promptBlocked) {
    yield toErrorPart(createProtocolError(providerId, 'ended the stream without a finish reason'), options);
    return;
  }
  const reason = finishReason === undefined ? 'content_filter' : mapFinishReason(finishReason, toolCalls > 0);
  yield { type: 'finish', finishReason: reason, usage: mapUsage(usage) };
}

/** Same part order and signature placement as `convertResponse`, as deltas. */
function convertPart(part: GeminiPart, responseId: string | undefined, toolIndex: number, argumentsFollow: boolean): StreamPart[] {
  const signature: StreamPart[] = part.thoughtSignature ? [{ type: 'reasoning-signature', signature: part.thoughtSignature }] : [];
  if (part.thought) return [...(part.text ? [{ type: 'reasoning-delta', text: part.text } as const] : []), ...signature];
  if (part.functionCall) {
    const { id, name, args } = part.functionCall;
    // A stray closing part of a streamed call (nothing open) carries nothing to show.
    if (!name) return signature;
    const start: StreamPart = { type: 'tool-call-start', index: toolIndex, id: createToolCallId(responseId, toolIndex, id), name };
    if (argumentsFollow) return [...signature, start];
    return [...signature, start, { type: 'tool-call-delta', index: toolIndex, argumentsDelta: JSON.stringify(args ?? {}) }];
  }
  return [...signature, ...(part.text ? [{ type: 'text-delta', text: part.text } as const] : [])];
}

/** A chunk, or the failure it reports: Gemini sends `{error: {code, message, status}}` in-band after a 200. */
function readChunk(providerId: string, data: string): GeminiResponse | UpstreamError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return createProtocolError(providerId, 'sent a stream chunk that is not a JSON object', data);
  }
  const chunk = parsed as GeminiResponse;
  return chunk.error ? mapError(providerId, chunk.error, data) : chunk;
}
