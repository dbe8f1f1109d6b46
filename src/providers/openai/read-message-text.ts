import { asArray, asRecord, asString, type JsonRecord } from '../shared/lenient-json.js';

export interface MessageText {
  text: string;
  reasoning: string;
}

/**
 * The text and reasoning of a Chat Completions `message` or stream `delta`.
 *
 * Reasoning is `reasoning_content` (DeepSeek, https://api-docs.deepseek.com/guides/reasoning_model;
 * vLLM) or `reasoning` (OpenRouter, Ollama, Groq); vLLM may send both with the same text, so the
 * first one present wins. Mistral's reasoning models send `content` as an array of `text` and
 * `thinking` chunks (https://docs.mistral.ai/capabilities/reasoning/). A `refusal` is shown as text.
 */
export function readMessageText(message: JsonRecord): MessageText {
  let text = asString(message.content) ?? '';
  let reasoning = asString(message.reasoning_content) || asString(message.reasoning) || '';
  for (const item of asArray(message.content)) {
    const chunk = asRecord(item);
    if (chunk?.type === 'text') text += asString(chunk.text) ?? '';
    if (chunk?.type === 'thinking') reasoning += readThinking(chunk.thinking);
  }
  const refusal = asString(message.refusal);
  if (refusal) text += refusal;
  return { text, reasoning };
}

/** Mistral's `thinking` chunk: a string, or text chunks. */
export function readThinking(value: unknown): string {
  const direct = asString(value);
  if (direct !== undefined) return direct;
  let text = '';
  for (const item of asArray(value)) text += asString(asRecord(item)?.text) ?? '';
  return text;
}
