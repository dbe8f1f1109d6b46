import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Message } from '../core/content.js';
import type { TextRequest } from '../core/text-request.js';

/**
 * Token counts for requests whose provider reported no usage (some OpenAI-compatible servers,
 * streams cut off before their usage event). Counted with the o200k_base BPE (js-tiktoken, pure
 * JavaScript, ranks shipped in the package); for other model families it is an approximation,
 * so such requests are recorded as `estimated`.
 *
 * The encoder lives in a worker thread of its own. Built, it holds ~66 MB of JavaScript objects
 * (two maps over 200,000 tokens): in the main thread that was ~60 % of the live heap after a full
 * collection, marked again by every one of them, and the soak's slowest requests were those that
 * met a full collection (bench/README, "Session of 2026-11-27, seventh"). In its own isolate it
 * is marked only when the worker collects, which it does when it counts. A count is a message
 * each way, paid only by the rare answers without usage.
 *
 * Building the encoder from its ranks is 0.7–1.5 s of work; `serve` calls `prepareTokenizer`
 * before it listens, so that no request waits for it.
 */

// Runs as a CommonJS script in the worker (`eval`), so that it needs no file of its own beside
// the compiled one (tests run the TypeScript sources); the package is resolved by the caller.
// Messages sent while the encoder is being built wait in the port: the first answer comes once it is.
const workerSource = `
const { workerData, parentPort } = require('node:worker_threads');
const { Tiktoken } = require(workerData.lite);
const encoder = new Tiktoken(require(workerData.ranks));
parentPort.on('message', ({ id, text }) => {
  try {
    parentPort.postMessage({ id, count: encoder.encode(text).length });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

type Count = (text: string) => Promise<number>;

let count: Count | undefined;

function startWorker(): Count {
  const require = createRequire(import.meta.url);
  const worker = new Worker(workerSource, { eval: true, workerData: { lite: require.resolve('js-tiktoken/lite'), ranks: require.resolve('js-tiktoken/ranks/o200k_base') } });
  // Idle, the worker does not keep the process alive; while a count is under way it does.
  worker.unref();
  const pending = new Map<number, { resolve(count: number): void; reject(error: Error): void }>();
  let nextId = 0;
  const countInWorker: Count = (text) => {
    const id = nextId++;
    if (pending.size === 0) worker.ref();
    return new Promise<number>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, text });
    });
  };
  const fail = (error: Error) => {
    // The next count starts a new worker; those under way fail with this one.
    if (count === countInWorker) count = undefined;
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
  return countInWorker;
}

/** Builds the encoder now, so that no request pays for it (see above): a first count's answer waits for it. */
export async function prepareTokenizer(): Promise<void> {
  count ??= startWorker();
  await count('ready');
}

export async function countTextTokens(text: string): Promise<number> {
  if (text === '') return 0;
  count ??= startWorker();
  return count(text);
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
