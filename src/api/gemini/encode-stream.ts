import type { StreamError, StreamPart } from '../../core/stream-part.js';
import type { ResponseMeta } from '../shared/text-call.js';
import { encodeGeminiSignature, isGeminiSignature } from './encode-signature.js';
import { encodeStreamError } from './encode-error.js';
import { parseArguments, type GeminiAnswerPart } from './encode-parts.js';
import { encodeUsage } from './encode-usage.js';
import { mapFinishReason } from './map-finish-reason.js';
import { withFields } from '../../core/with-fields.js';

/**
 * Canonical stream parts → `streamGenerateContent` chunks, each a `GenerateContentResponse` with
 * the parts that arrived: text and thought deltas as they come, a function call whole once its
 * arguments are complete (Gemini sends calls whole), then a last chunk with the finish reason and
 * `usageMetadata` (with `cost`). A Gemini signature rides on the next part, as Gemini sends it; at
 * the end it rides on an empty text part (see `encode-parts.ts`). A failure ends the stream with
 * Gemini's in-band `{error: {code, message, status}}`, which the SDK raises as `ApiError`.
 */
export async function* encodeGeminiChunks(parts: AsyncIterable<StreamPart>, meta: ResponseMeta): AsyncGenerator<string> {
  for await (const chunk of encodeChunkObjects(parts, meta)) yield JSON.stringify(chunk);
}

async function* encodeChunkObjects(parts: AsyncIterable<StreamPart>, meta: ResponseMeta): AsyncGenerator<object> {
  let pending: string | undefined;
  let call: { id: string; name: string; text: string } | undefined;
  const chunk = (answerParts: GeminiAnswerPart[], finish?: object) => ({
    candidates: [{ content: { parts: answerParts, role: 'model' }, ...finish, index: 0 }],
    modelVersion: meta.model,
    responseId: meta.id,
  });
  const signed = (part: GeminiAnswerPart): GeminiAnswerPart => {
    if (pending !== undefined) part.thoughtSignature = pending;
    pending = undefined;
    return part;
  };
  const flushCall = (): object | undefined => {
    if (!call) return undefined;
    const { id, name, text } = call;
    call = undefined;
    return chunk([signed({ functionCall: { id, name, args: parseArguments(text) } })]);
  };

  for await (const part of parts) {
    if (part.type === 'tool-call-delta') {
      if (call) call.text += part.argumentsDelta;
      continue;
    }
    if (part.type !== 'start') {
      const done = flushCall();
      if (done) yield done;
    }
    switch (part.type) {
      case 'text-delta':
        if (part.text !== '') yield chunk([signed({ text: part.text })]);
        break;
      case 'reasoning-delta':
        if (part.text !== '') yield chunk([{ text: part.text, thought: true }]);
        break;
      case 'reasoning-signature':
        if (isGeminiSignature(part.signature)) pending = encodeGeminiSignature(part.signature);
        else yield chunk([{ text: '', thought: true, thoughtSignature: part.signature }]);
        break;
      case 'tool-call-start':
        call = { id: part.id, name: part.name, text: '' };
        break;
      case 'finish': {
        const last = chunk([signed({ text: '' })], { finishReason: mapFinishReason(part.finishReason) });
        yield withFields(last, { usageMetadata: encodeUsage(part.usage, part.cost) });
        return;
      }
      case 'error':
        yield encodeStreamError(part.error, meta);
        return;
      case 'start':
      case 'citation':
      case 'reasoning-redacted':
        break;
    }
  }
  // Every canonical stream ends with `finish` or `error`; one that does not was cut short.
  yield encodeStreamError(unexpectedEnd, meta);
}

const unexpectedEnd: StreamError = { code: 'internal_error', message: 'The generation stream ended unexpectedly', status: 500 };

/** `?alt=sse`: one `data:` event per chunk (its JSON text), as Gemini streams it. */
export async function* frameSse(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  for await (const chunk of chunks) yield `data: ${chunk}\r\n\r\n`;
}

/**
 * Without `alt=sse`, Gemini streams one JSON array, its elements written as they come
 * (`[{…}\r\n,{…}]`); clients parse it incrementally. Whitespace between elements is valid JSON,
 * so a newline is the keep-alive.
 */
export async function* frameJsonArray(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  let first = true;
  for await (const chunk of chunks) {
    yield `${first ? '[' : '\r\n,'}${chunk}`;
    first = false;
  }
  yield first ? '[]' : ']';
}
