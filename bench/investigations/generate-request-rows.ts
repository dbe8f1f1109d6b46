import { costOfUnits } from '../../src/core/money.js';
import { createId } from '../../src/core/ids.js';
import type { RequestRecord, RequestStatus } from '../../src/billing/request-record.js';

/** Model, provider and prices (nano-USD per 1M tokens) that the seeded traffic is spread over. */
const routes = [
  { model: 'openai/gpt-4o-mini', provider: 'openai', prompt: 150_000_000n, completion: 600_000_000n, weight: 30 },
  { model: 'openai/gpt-4o', provider: 'openai', prompt: 2_500_000_000n, completion: 10_000_000_000n, weight: 8 },
  { model: 'openai/gpt-4o', provider: 'openrouter', prompt: 2_500_000_000n, completion: 10_000_000_000n, weight: 2 },
  { model: 'anthropic/claude-sonnet-4', provider: 'anthropic', prompt: 3_000_000_000n, completion: 15_000_000_000n, weight: 12 },
  { model: 'anthropic/claude-haiku-3.5', provider: 'anthropic', prompt: 800_000_000n, completion: 4_000_000_000n, weight: 10 },
  { model: 'google/gemini-2.0-flash', provider: 'gemini', prompt: 100_000_000n, completion: 400_000_000n, weight: 15 },
  { model: 'meta-llama/llama-3.3-70b', provider: 'groq', prompt: 590_000_000n, completion: 790_000_000n, weight: 6 },
  { model: 'meta-llama/llama-3.3-70b', provider: 'together', prompt: 880_000_000n, completion: 880_000_000n, weight: 4 },
  { model: 'deepseek/deepseek-chat', provider: 'deepseek', prompt: 270_000_000n, completion: 1_100_000_000n, weight: 7 },
  { model: 'mistral/mistral-small', provider: 'mistral', prompt: 200_000_000n, completion: 600_000_000n, weight: 6 },
];
const endpoints = ['/chat/completions', '/chat/completions', '/chat/completions', '/responses', '/messages'];

/** A small deterministic generator (mulberry32), so every run seeds the same traffic. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function pickWeighted<T extends { weight: number }>(items: readonly T[], roll: number): T {
  const total = items.reduce((sum, item) => sum + item.weight, 0);
  let point = roll * total;
  for (const item of items) {
    point -= item.weight;
    if (point < 0) return item;
  }
  return items[items.length - 1];
}

function pickStatus(roll: number): RequestStatus {
  if (roll < 0.95) return 'completed';
  if (roll < 0.975) return 'failed';
  if (roll < 0.99) return 'aborted';
  return 'refused';
}

/**
 * Yields `rows` request log rows for one account, in chunks, evenly spread over `days` days that
 * end now (ids are time-ordered like real request ids, and created_at is the id's time).
 */
export function* generateRequestRows(options: { accountId: string; keyIds: string[]; rows: number; days: number; now: number; chunk: number }): Generator<RequestRecord[]> {
  const random = createRandom(20261121);
  const start = options.now - options.days * 86_400_000;
  const step = (options.days * 86_400_000) / options.rows;
  const keys = options.keyIds.map((id, index) => ({ id, weight: index === 0 ? 5 : 2 + index }));
  let chunk: RequestRecord[] = [];
  for (let index = 0; index < options.rows; index += 1) {
    const at = Math.floor(start + index * step);
    const route = pickWeighted(routes, random());
    const status = pickStatus(random());
    const reached = status !== 'refused';
    const promptTokens = reached ? 50 + Math.floor(random() * 4000) : 0;
    const completionTokens = status === 'completed' ? 10 + Math.floor(random() * 900) : status === 'aborted' ? Math.floor(random() * 200) : 0;
    const cost = costOfUnits(promptTokens, route.prompt) + costOfUnits(completionTokens, route.completion);
    chunk.push({
      id: createId('req', at),
      accountId: options.accountId,
      keyId: pickWeighted(keys, random()).id,
      model: route.model,
      provider: reached ? route.provider : null,
      endpoint: endpoints[Math.floor(random() * endpoints.length)],
      streamed: random() < 0.6,
      status,
      errorCode: status === 'completed' ? null : status === 'failed' ? 'upstream_error' : status === 'aborted' ? 'client_closed' : 'insufficient_balance',
      latencyMs: 80 + Math.floor(random() * 4000),
      promptTokens,
      completionTokens,
      cachedTokens: reached && random() < 0.2 ? Math.floor(promptTokens / 2) : 0,
      reasoningTokens: 0,
      cost,
      estimated: status === 'aborted',
      createdAt: new Date(at).toISOString(),
    });
    if (chunk.length === options.chunk) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}
