import type { Citation } from '../../core/content.js';
import { asArray, asRecord, asString, type JsonRecord } from '../shared/lenient-json.js';
import { mapFinishReason } from './map-finish-reason.js';
import { readCitations } from './read-citations.js';
import { readThinking } from './read-message-text.js';
import { encodeUrlCitation } from '../../wire/openai/encode-url-citation.js';

/**
 * "openai" is one wire for many vendors, and they deviate from OpenAI's shape. The relay reads
 * each answer leniently and hands the client OpenAI's shape plus the OpenRouter extensions the
 * translated path emits (contract §4, "one dialect out"), so that the same model through two
 * providers, relayed or translated, answers alike. Known deviations, each from a recorded answer
 * (`__fixtures__/SOURCES.md`):
 *
 * - `reasoning_content` (DeepSeek, xAI, Qwen/DashScope, Moonshot, vLLM) → `reasoning`, plus
 *   `reasoning_details` as OpenRouter sends it; `reasoning` alone (Groq) gets its details too;
 * - `content` as typed parts (Mistral's thinking models: `thinking` + `text`) → string content
 *   and reasoning;
 * - streamed tool calls without `index` or `type` and a first delta without `role` (Mistral),
 *   `role` repeated (Perplexity) or null (Azure) in later deltas;
 * - top-level `citations` / `search_results` (Perplexity) → `annotations` (`url_citation`);
 * - a missing `system_fingerprint`, `refusal` or `logprobs` (required by OpenRouter's SDK) → null;
 * - a vendor's own `finish_reason` → OpenAI's, as the translated path maps it;
 * - usage in a chunk with choices (DeepSeek, Mistral; Perplexity in every chunk) → only in the
 *   closing usage chunk, as OpenAI sends it and as the gateway adds the cost.
 *
 * The work is a few property reads per chunk on an object the relay has parsed anyway.
 */
export function normalizeChatCompletion(record: JsonRecord): void {
  record.object = 'chat.completion';
  if (record.system_fingerprint === undefined) record.system_fingerprint = null;
  const citations = takeCitations(record);
  for (const value of asArray(record.choices)) {
    const choice = asRecord(value);
    if (!choice) continue;
    if (choice.logprobs === undefined) choice.logprobs = null;
    choice.finish_reason = officialFinishReason(choice.finish_reason) ?? 'stop';
    const message = asRecord(choice.message);
    if (!message) continue;
    normalizeText(message);
    if (message.content === '' || message.content === undefined) message.content = null;
    if (message.refusal === undefined) message.refusal = null;
    const calls = asArray(message.tool_calls);
    if (calls.length === 0) delete message.tool_calls;
    for (const call of calls) {
      const record = asRecord(call);
      if (!record) continue;
      // `index` belongs to stream deltas (DeepSeek repeats it in the message).
      delete record.index;
      record.type ??= 'function';
    }
    const text = typeof message.content === 'string' ? message.content : '';
    if (citations && text) message.annotations = citations.map((citation) => encodeUrlCitation(citation, 0, text.length));
  }
}

export interface ChatChunkNormalizer {
  /**
   * The chunks to send for one provider chunk, in order (one, or the annotations chunk split
   * off before a finish); `usage` is taken out of chunks with choices and kept in `usage`.
   */
  normalize(chunk: JsonRecord): JsonRecord[];
  /** The latest usage the provider reported, for the closing usage chunk. */
  readonly usage: unknown;
}

/**
 * The stream side of `normalizeChatCompletion`, with the state one stream needs. A class, made
 * once per stream: as an object literal with a getter and closures it took 4.0 µs to make (V8
 * builds a literal's accessor anew each time, 1.4 µs of it), as a class 0.1 µs.
 */
export function createChatChunkNormalizer(): ChatChunkNormalizer {
  return new ChunkNormalizer();
}

class ChunkNormalizer implements ChatChunkNormalizer {
  usage: unknown = undefined;
  private started = false;
  private citations: Citation[] | undefined = undefined;
  private textLength = 0;
  private toolIndexById: Map<string, number> | undefined = undefined;
  private lastToolIndex = -1;

  normalize(chunk: JsonRecord): JsonRecord[] {
    chunk.object = 'chat.completion.chunk';
    this.citations = takeCitations(chunk) ?? this.citations;
    const choices = asArray(chunk.choices);
    if (choices.length > 0 && chunk.usage !== undefined) {
      if (chunk.usage !== null) this.usage = chunk.usage;
      // Left out of the frame as `delete` would, which JSON.stringify does for undefined; a
      // delete of a property that is not the object's last (OpenAI's `usage: null` in every
      // chunk) turned each chunk into a slow dictionary object, re-serialized slowly.
      chunk.usage = undefined;
    } else if (chunk.usage !== undefined && chunk.usage !== null) {
      this.usage = chunk.usage;
    }
    const choice = asRecord(choices[0]);
    const delta = asRecord(choice?.delta);
    if (!choice || !delta) return [chunk];
    if (choice.logprobs === undefined) choice.logprobs = null;
    choice.finish_reason = officialFinishReason(choice.finish_reason);
    if (!this.started) {
      // OpenAI's first delta: the role, empty content and no refusal.
      this.started = true;
      delta.role ??= 'assistant';
      delta.refusal ??= null;
      if (delta.content === null || delta.content === undefined) delta.content = '';
    } else if (delta.role === 'assistant' || delta.role === null) {
      // Perplexity repeats the role in every delta, Azure sends null there; OpenAI sends it once.
      delete delta.role;
    }
    normalizeText(delta);
    if (delta.content === null) delete delta.content;
    this.normalizeToolCalls(delta);
    if (typeof delta.content === 'string') this.textLength += delta.content.length;
    if (choice.finish_reason === null || !this.citations) return [chunk];
    // The translated path sends the sources once, whole, just before the finish chunk.
    const annotations = this.citations.map((citation) => encodeUrlCitation(citation, 0, this.textLength));
    this.citations = undefined;
    const finish = { ...chunk, choices: [{ ...choice, delta: {} }] };
    const annotated = { ...chunk, choices: [{ index: choice.index ?? 0, delta: { annotations }, finish_reason: null, logprobs: null }] };
    const hasDelta = Object.keys(delta).length > 0;
    choice.finish_reason = null;
    return hasDelta ? [chunk, annotated, finish] : [annotated, finish];
  }

  private normalizeToolCalls(delta: JsonRecord): void {
    const calls = asArray(delta.tool_calls);
    if (calls.length === 0) {
      if (delta.tool_calls !== undefined) delete delta.tool_calls;
      return;
    }
    const toolIndexById = (this.toolIndexById ??= new Map<string, number>());
    for (const value of calls) {
      const call = asRecord(value);
      if (!call) continue;
      const id = asString(call.id);
      if (typeof call.index !== 'number') {
        // Mistral sends each call whole, with its id and no index: a new id is the next call.
        let index = id === undefined ? undefined : toolIndexById.get(id);
        if (index === undefined) index = id === undefined && this.lastToolIndex >= 0 ? this.lastToolIndex : toolIndexById.size;
        call.index = index;
      }
      if (id !== undefined && !toolIndexById.has(id)) toolIndexById.set(id, call.index as number);
      this.lastToolIndex = call.index as number;
      if (id !== undefined) call.type ??= 'function';
    }
  }
}

/** OpenAI's four reasons; a vendor's own (`eos`, `model_length`…) as the translated path reads it. */
function officialFinishReason(reason: unknown): string | null {
  if (reason === null || reason === undefined) return null;
  const canonical = mapFinishReason(reason);
  return canonical === 'other' || canonical === 'error' ? 'stop' : canonical;
}

/** A message or delta's text and reasoning in OpenAI's and OpenRouter's fields. */
function normalizeText(message: JsonRecord): void {
  let reasoning = asString(message.reasoning_content) || asString(message.reasoning) || '';
  // Only when present: a delete is a call into V8's runtime even for a missing property.
  if (message.reasoning_content !== undefined) delete message.reasoning_content;
  if (Array.isArray(message.content)) {
    let text = '';
    for (const item of message.content) {
      const part = asRecord(item);
      if (part?.type === 'text') text += asString(part.text) ?? '';
      else if (part?.type === 'thinking') reasoning += readThinking(part.thinking);
    }
    message.content = text;
    // A delta of thinking only has no content, as the translated path sends it.
    if (text === '' && reasoning !== '') delete message.content;
  }
  if (reasoning === '') {
    if (message.reasoning !== undefined && !asString(message.reasoning)) delete message.reasoning;
    return;
  }
  message.reasoning = reasoning;
  if (!Array.isArray(message.reasoning_details)) message.reasoning_details = [{ type: 'reasoning.text', text: reasoning, format: 'unknown', index: 0 }];
}

/** Perplexity's sources, taken off the top level where no OpenAI client reads them. */
function takeCitations(record: JsonRecord): Citation[] | undefined {
  if (record.citations === undefined && record.search_results === undefined) return undefined;
  const citations = readCitations(record);
  delete record.citations;
  delete record.search_results;
  return citations;
}
