import { startSimulator, type Simulator } from '@switchyard/simulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../config/types.js';
import type { EmbeddingRequest } from '../../core/embedding-request.js';
import type { TextRequest } from '../../core/text-request.js';
import { UpstreamError } from '../../errors/upstream-error.js';
import type { ProviderBatchRequest, ProviderBatchResult, ProviderBatchState } from '../batch-adapter.js';
import { providerBatchAdapters } from '../batch-adapters.js';
import { openaiBatchAdapter as adapter } from './batch-adapter.js';

let simulator: Simulator;
let provider: ProviderConfig;
const signal = new AbortController().signal;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: 'sim-key', batchDurationMs: 100 });
  provider = {
    id: 'oai',
    name: 'OpenAI',
    api: 'openai',
    baseUrl: simulator.baseUrls.openai,
    auth: { kind: 'bearer', token: 'sim-key' },
    enabled: true,
    headers: { 'x-extra': 'yes' },
    timeouts: { connectMs: 1000, firstByteMs: 5000, idleMs: 5000 },
  };
});
afterAll(async () => {
  await simulator?.close();
});
beforeEach(() => simulator.reset());

const text = (words: string, extra: Partial<TextRequest> = {}): TextRequest => ({ messages: [{ role: 'user', content: [{ type: 'text', text: words }] }], stream: false, ...extra });

async function untilEnded(batchId: string): Promise<ProviderBatchState> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const state = await adapter.retrieve(provider, batchId, signal);
    if (state.ended) return state;
    await sleep(25);
  }
  throw new Error(`batch ${batchId} did not end`);
}

const byId = (results: ProviderBatchResult[]) => new Map(results.map((result) => [result.customId, result]));

describe('OpenAI batch adapter against the simulator', () => {
  it('is registered for the openai protocol and serves text and embeddings on OpenAI itself, nothing on Azure', () => {
    expect(providerBatchAdapters.openai).toBe(adapter);
    expect([...adapter.kindsFor(provider)].sort()).toEqual(['embeddings', 'text']);
    expect(adapter.kindsFor({ ...provider, platform: { kind: 'azure', apiVersion: '2024-10-21' } }).size).toBe(0);
    expect(adapter.maxRequestsPerBatch).toBe(50_000);
  });

  it('runs a text batch: uploads the JSONL, creates the batch, polls it to its end, maps each result back by custom id with its usage; a refused line is errored with its status and error', async () => {
    const requests: ProviderBatchRequest[] = [
      { customId: 'one', body: adapter.encodeText(text('hello there', { maxTokens: 4 }), 'gpt-4o-mini') },
      { customId: 'two', body: adapter.encodeText(text('a b c d e'), 'gpt-4o-mini') },
      { customId: 'bad', body: adapter.encodeText(text('refuse me [[sim:status=400]]'), 'gpt-4o-mini') },
    ];
    expect(requests[0].body).toMatchObject({ model: 'gpt-4o-mini', max_completion_tokens: 4, messages: [{ role: 'user' }] });
    expect(requests[0].body.stream).toBeUndefined();

    const created = await adapter.create(provider, 'gpt-4o-mini', 'text', requests, signal);
    expect(created).toMatchObject({ id: expect.stringMatching(/^batch_/), ended: false });

    const ended = await untilEnded(created.id);
    // The input file OpenAI holds is one request a line, in OpenAI's batch input format.
    const [part] = (ended.resultsRef as { parts: Array<{ inputFileId: string }> }).parts;
    const input = await (await fetch(`${simulator.baseUrls.openai}/files/${part.inputFileId}/content`, { headers: { authorization: 'Bearer sim-key' } })).text();
    expect(input.trim().split('\n').map((line) => JSON.parse(line) as unknown)).toEqual(requests.map((request) => ({ custom_id: request.customId, method: 'POST', url: '/v1/chat/completions', body: request.body })));
    // Each line reached the live endpoint with the body the live adapter would send.
    const sent = simulator.received().filter((request) => request.path === '/openai/v1/chat/completions').map((request) => request.body);
    expect(sent).toEqual(expect.arrayContaining(requests.map((request) => request.body)));

    const results = byId(await adapter.results(provider, ended, signal));
    expect(results.size).toBe(3);

    const one = results.get('one')!;
    expect(one.kind).toBe('succeeded');
    const decoded = adapter.decodeText((one as { body: Record<string, unknown> }).body, provider);
    expect(decoded.usage).toMatchObject({ promptTokens: 5, completionTokens: 4 });
    expect(decoded.finishReason).toBe('length');
    expect(decoded.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Simulated reply from gpt-4o-mini') });
    const two = adapter.decodeText((results.get('two') as { body: Record<string, unknown> }).body, provider);
    expect(two.usage).toMatchObject({ promptTokens: 8, completionTokens: 16 });

    const bad = results.get('bad')!;
    expect(bad).toMatchObject({ kind: 'errored', status: 400, error: { error: { message: expect.any(String) } } });

    // Cancelling a batch that has ended is no failure for the engine.
    await expect(adapter.cancel(provider, created.id, signal)).resolves.toBeUndefined();
  });

  it('runs an embeddings batch: each result decodes to its vectors and prompt tokens', async () => {
    const first: EmbeddingRequest = { inputs: ['one two', 'three'] };
    const second: EmbeddingRequest = { inputs: ['four five six'], dimensions: 256 };
    const requests = [
      { customId: 'e1', body: adapter.encodeEmbeddings!(first, 'text-embedding-3-small') },
      { customId: 'e2', body: adapter.encodeEmbeddings!(second, 'text-embedding-3-small') },
    ];
    expect(requests[1].body).toEqual({ model: 'text-embedding-3-small', input: ['four five six'], dimensions: 256 });
    const created = await adapter.create(provider, 'text-embedding-3-small', 'embeddings', requests, signal);
    const results = byId(await adapter.results(provider, await untilEnded(created.id), signal));
    const e1 = adapter.decodeEmbeddings!((results.get('e1') as { body: Record<string, unknown> }).body, first);
    expect(e1.vectors).toHaveLength(2);
    expect(e1).toMatchObject({ promptTokens: 3, estimated: false });
    const e2 = adapter.decodeEmbeddings!((results.get('e2') as { body: Record<string, unknown> }).body, second);
    expect(e2.vectors[0]).toHaveLength(256);
    expect(e2.promptTokens).toBe(3);
  });

  it('cancels mid-way: the line already answered succeeds, the one in flight ends canceled', async () => {
    const requests = [
      { customId: 'quick', body: adapter.encodeText(text('quick'), 'gpt-4o-mini') },
      { customId: 'slow', body: adapter.encodeText(text('slow [[sim:latency=60000]]'), 'gpt-4o-mini') },
    ];
    const created = await adapter.create(provider, 'gpt-4o-mini', 'text', requests, signal);
    // Watch OpenAI's own request counts until the quick line has answered.
    for (let attempt = 0; ; attempt++) {
      const batch = (await (await fetch(`${simulator.baseUrls.openai}/batches/${created.id}`, { headers: { authorization: 'Bearer sim-key' } })).json()) as { request_counts: { completed: number } };
      if (batch.request_counts.completed === 1) break;
      if (attempt > 200) throw new Error('the quick line never answered');
      await sleep(25);
    }
    expect((await adapter.retrieve(provider, created.id, signal)).ended).toBe(false);
    await adapter.cancel(provider, created.id, signal);
    const ended = await untilEnded(created.id);
    expect(ended.resultsRef).toMatchObject({ parts: [{ id: created.id, status: 'cancelled' }] });
    const results = byId(await adapter.results(provider, ended, signal));
    expect(results.get('quick')).toMatchObject({ kind: 'succeeded', body: { object: 'chat.completion' } });
    expect(results.get('slow')).toEqual({ customId: 'slow', kind: 'canceled' });
  });

  it('splits a chunk over 50,000 embedding inputs into OpenAI batches under one id, and cancels them all: every request canceled', async () => {
    const inputs = Array.from({ length: 2_000 }, (_, index) => `w${index}`);
    const requests = Array.from({ length: 26 }, (_, index) => ({ customId: `r${index}`, body: adapter.encodeEmbeddings!({ inputs }, 'text-embedding-3-small') }));
    const created = await adapter.create(provider, 'text-embedding-3-small', 'embeddings', requests, signal);
    const ids = created.id.split(',');
    expect(ids).toHaveLength(2);
    await adapter.cancel(provider, created.id, signal);
    const ended = await untilEnded(created.id);
    const results = await adapter.results(provider, ended, signal);
    expect(results).toHaveLength(26);
    expect(new Set(results.map((result) => result.kind))).toEqual(new Set(['canceled']));
    expect(new Set(results.map((result) => result.customId)).size).toBe(26);
  });

  it('reads a batch that expired: the line answered in time succeeds, the one still running ends expired', async () => {
    const short = await startSimulator({ apiKey: 'sim-key', batchDurationMs: 50, batchCompletionWindowMs: 1500 });
    try {
      const shortProvider = { ...provider, baseUrl: short.baseUrls.openai };
      const requests = [
        { customId: 'quick', body: adapter.encodeText(text('quick'), 'gpt-4o-mini') },
        { customId: 'slow', body: adapter.encodeText(text('slow [[sim:latency=60000]]'), 'gpt-4o-mini') },
      ];
      const created = await adapter.create(shortProvider, 'gpt-4o-mini', 'text', requests, signal);
      let state = await adapter.retrieve(shortProvider, created.id, signal);
      for (let attempt = 0; !state.ended && attempt < 200; attempt++) {
        await sleep(25);
        state = await adapter.retrieve(shortProvider, created.id, signal);
      }
      expect(state.resultsRef).toMatchObject({ parts: [{ status: 'expired' }] });
      const results = byId(await adapter.results(shortProvider, state, signal));
      expect(results.get('quick')).toMatchObject({ kind: 'succeeded' });
      expect(results.get('slow')).toEqual({ customId: 'slow', kind: 'expired' });
    } finally {
      await short.close();
    }
  });

  it('rejects with UpstreamError when the provider refuses the key, when a batch is unknown, and when nothing answers', async () => {
    const refused = { ...provider, auth: { kind: 'bearer' as const, token: 'wrong' } };
    const request = { customId: 'a', body: adapter.encodeText(text('hi'), 'gpt-4o-mini') };
    const failure = await adapter.create(refused, 'gpt-4o-mini', 'text', [request], signal).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ provider: 'oai', status: 401, retryable: false });
    await expect(adapter.retrieve(provider, 'batch_unknown', signal)).rejects.toMatchObject({ name: 'UpstreamError', status: 404 });
    // Nothing listening: no answer at all is status 0, which the engine may try again.
    const unreachable = { ...provider, baseUrl: 'http://127.0.0.1:1/v1' };
    await expect(adapter.retrieve(unreachable, 'batch_x', signal)).rejects.toMatchObject({ name: 'UpstreamError', status: 0, retryable: true });
  });
});
