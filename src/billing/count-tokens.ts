import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Message } from '../core/content.js';
import type { TextRequest } from '../core/text-request.js';

/**
 * Token counts for requests whose provider reported no usage (some OpenAI-compatible servers,
 * streams cut off before their usage event), and for `/v1/messages/count_tokens`. Counted with the
 * o200k_base BPE (gpt-tokenizer, pure JavaScript, ranks shipped in the package); for other model
 * families it is an approximation, so such requests are recorded as `estimated`.
 *
 * Whatever the text, a count ends and is bounded:
 * - Strings that spell a special token (`<|endoftext|>`, `<|im_start|>` …) are text a user wrote,
 *   counted as such. Left to the default, the encoder refused the whole text.
 * - Byte-pair merging is quadratic in a piece's length, and the pre-tokenizer leaves a run of
 *   letters with no space or punctuation (CJK without punctuation, a DNA sequence, a long
 *   lowercase identifier), of symbols or of whitespace as one piece. 8,000 such CJK characters took
 *   146 s with js-tiktoken and 0.7 s here; 100,000 took 92 s here. Runs longer than `longRun`
 *   characters are counted in slices of that length: linear in the text, off by at most a token
 *   or so per slice, on text no ordinary prose contains.
 *
 * The encoder lives in a worker thread of its own. Built, it holds tens of MB of JavaScript
 * objects (maps over 200,000 tokens): in the main thread js-tiktoken's was ~60 % of the live heap
 * after a full collection, marked again by every one of them, and the soak's slowest requests were
 * those that met a full collection (bench/README, "Session of 2026-11-27, seventh"). In its own
 * isolate it is marked only when the worker collects, which it does when it counts. A count is a
 * message each way, paid only by the rare answers without usage.
 *
 * Building the encoder is ~0.4 s of work; `serve` calls `prepareTokenizer` before it listens, so
 * that no request waits for it.
 *
 * A count always answers. When the worker cannot (it died, or its count threw), the text is
 * counted at one token per four UTF-8 bytes (about right for English, a little under one token a
 * character for CJK), the failure is told to the listener `serve` sets, and the next count starts a
 * fresh worker. Left to reject, a failed count stopped the settlement of a stream whose usage had
 * to be estimated: its reservation stayed held until its two-hour lifetime ran out.
 */

/** The longest run of one character class counted whole (see above). */
export const longRun = 256;

// Runs as a CommonJS script in the worker (`eval`), so that it needs no file of its own beside
// the compiled one (tests run the TypeScript sources); the package is resolved by the caller.
// Messages sent while the encoder is being built wait in the port: the first answer comes once it is.
const workerSource = `
const { workerData, parentPort } = require('node:worker_threads');
const { countTokens } = require(workerData.tokenizer);
const asText = { disallowedSpecial: new Set() };
const runs = /[\\p{L}\\p{M}]{${longRun},}|[^\\s\\p{L}\\p{N}]{${longRun},}|\\s{${longRun},}/gu;
function count(text) {
  let total = 0;
  let from = 0;
  for (const run of text.matchAll(runs)) {
    const end = run.index + run[0].length;
    for (let cut = run.index + ${longRun}; cut < end; cut += ${longRun}) {
      // Never between the two halves of a surrogate pair.
      const code = text.charCodeAt(cut);
      if (code >= 0xdc00 && code <= 0xdfff) cut += 1;
      if (cut >= end) break;
      total += countTokens(text.slice(from, cut), asText);
      from = cut;
    }
  }
  return total + countTokens(text.slice(from), asText);
}
parentPort.on('message', ({ id, text }) => {
  try {
    parentPort.postMessage({ id, count: count(text) });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

type Count = (text: string) => Promise<number>;

/** The worker that counts, and the function that asks it. */
interface Counter {
  count: Count;
  worker: Worker;
}

let counter: Counter | undefined;
let failureListener: ((error: Error) => void) | undefined;

/** Who hears of a count that fell back to the byte approximation (`serve`: its log). */
export function onTokenCountFailure(listener: ((error: Error) => void) | undefined): void {
  failureListener = listener;
}

function startWorker(): Counter {
  const require = createRequire(import.meta.url);
  const worker = new Worker(workerSource, { eval: true, workerData: { tokenizer: require.resolve('gpt-tokenizer/encoding/o200k_base') } });
  // Idle, the worker does not keep the process alive; while a count is under way it does.
  worker.unref();
  const pending = new Map<number, { resolve(count: number): void; reject(error: Error): void }>();
  let nextId = 0;
  const started: Counter = {
    worker,
    count: (text) => {
      const id = nextId++;
      if (pending.size === 0) worker.ref();
      return new Promise<number>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, text });
      });
    },
  };
  const fail = (error: Error) => {
    // The next count starts a new worker; those under way fail with this one.
    if (counter === started) counter = undefined;
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  };
  worker.on('message', (message: { id: number; count?: number; error?: string }) => {
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (pending.size === 0) worker.unref();
    if (message.error === undefined) waiter.resolve(message.count!);
    else waiter.reject(new Error(`token count failed: ${message.error}`));
  });
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the token counter's worker exited (${code})`)));
  return started;
}

/** Builds the encoder now, so that no request pays for it (see above): a first count's answer waits for it. */
export async function prepareTokenizer(): Promise<void> {
  counter ??= startWorker();
  await counter.count('ready');
}

/** Stops the worker (at shutdown): counts under way answer the approximation; a later count starts another. */
export async function closeTokenizer(): Promise<void> {
  const stopping = counter;
  counter = undefined;
  await stopping?.worker.terminate();
}

export async function countTextTokens(text: string): Promise<number> {
  if (text === '') return 0;
  counter ??= startWorker();
  try {
    return await counter.count(text);
  } catch (error) {
    failureListener?.(error instanceof Error ? error : new Error(String(error)));
    return Math.ceil(Buffer.byteLength(text) / 4);
  }
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
