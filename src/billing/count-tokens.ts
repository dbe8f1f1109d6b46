import type { Tiktoken } from 'js-tiktoken/lite';
import type { Message } from '../core/content.js';
import type { TextRequest } from '../core/text-request.js';

/**
 * Token counts for requests whose provider reported no usage (some OpenAI-compatible servers,
 * streams cut off before their usage event). Counted with the o200k_base BPE (js-tiktoken, pure
 * JavaScript, ranks shipped in the package); for other model families it is an approximation,
 * so such requests are recorded as `estimated`.
 *
 * Building the encoder from its ranks is 0.7–1.5 s of synchronous work, which on first use would
 * freeze every request in flight; `serve` calls `prepareTokenizer` before it listens.
 */
let encoder: Promise<Tiktoken> | undefined;

/** Builds the encoder now, so that no request pays for it (see above). */
export async function prepareTokenizer(): Promise<void> {
  await loadEncoder();
}

function loadEncoder(): Promise<Tiktoken> {
  encoder ??= Promise.all([import('js-tiktoken/lite'), import('js-tiktoken/ranks/o200k_base')]).then(
    ([{ Tiktoken }, { default: ranks }]) => new Tiktoken(ranks),
  );
  return encoder;
}

export async function countTextTokens(text: string): Promise<number> {
  if (text === '') return 0;
  return (await loadEncoder()).encode(text).length;
}

/** Per-message framing tokens, as OpenAI's chat format adds them. */
const perMessage = 3;
/** An image at OpenAI's high detail, 1024×1024, in tokens. */
const perImage = 765;

/** The prompt's tokens: every text part, tool call and tool definition, plus framing and images. */
export async function countRequestTokens(request: TextRequest): Promise<number> {
  let text = '';
  let images = 0;
  for (const message of request.messages) {
    text += `${messageText(message)}\n`;
    if (message.role === 'user' || message.role === 'tool') images += message.content.filter((part) => part.type === 'image').length;
  }
  if (request.tools) text += JSON.stringify(request.tools);
  return (await countTextTokens(text)) + perMessage * request.messages.length + perImage * images;
}

function messageText(message: Message): string {
  if (message.role === 'system') return message.content;
  let text = '';
  for (const part of message.content) {
    if (part.type === 'text' || part.type === 'reasoning') text += part.text;
    else if (part.type === 'tool-call') text += part.name + part.arguments;
  }
  return text;
}
