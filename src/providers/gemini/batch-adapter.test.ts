import { createServer } from 'node:http';
import { startSimulator, type Simulator } from '@switchyard/simulator';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../config/types.js';
import type { TextRequest } from '../../core/text-request.js';
import { UpstreamError } from '../../errors/upstream-error.js';
import type { ProviderBatchState } from '../batch-adapter.js';
import { providerBatchAdapterOf } from '../batch-adapters.js';
import { closeServer, listenLocally } from '../shared/__fixtures__/listen-locally.js';
import { createProviderDispatcher } from '../shared/send-request.js';
import { geminiBatchAdapter } from './batch-adapter.js';
import { geminiAdapter } from './gemini-adapter.js';

let simulator: Simulator;
beforeAll(async () => {
  simulator = await startSimulator({ apiKey: 'k', batchDurationMs: 100 });
});
afterAll(async () => {
  await simulator.close();
});
beforeEach(() => simulator.reset());

const model = 'gemini-2.5-flash';
const providerWith = (key: string, platform?: ProviderConfig['platform']): ProviderConfig => ({
  id: 'google',
  name: 'Google AI Studio',
  api: 'gemini',
  baseUrl: simulator.baseUrls.gemini,
  auth: { kind: 'api-key-header', header: 'x-goog-api-key', key },
  enabled: true,
  headers: {},
  timeouts: { connectMs: 2000, firstByteMs: 5000, idleMs: 5000 },
  ...(platform && { platform }),
});
const signal = () => new AbortController().signal;
const ask = (text: string): TextRequest => ({ messages: [{ role: 'user', content: [{ type: 'text', text }] }], maxTokens: 50, stream: false });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function untilEnded(provider: ProviderConfig, id: string): Promise<ProviderBatchState> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const state = await geminiBatchAdapter.retrieve(provider, id, signal());
    if (state.ended) return state;
    await sleep(25);
  }
  throw new Error('the batch did not end');
}

describe('Gemini batch mode adapter (against the simulator)', () => {
  it('is the registry entry for gemini; serves text on AI Studio and nothing on Vertex AI', () => {
    expect(providerBatchAdapterOf('gemini')).toBe(geminiBatchAdapter);
    expect([...geminiBatchAdapter.kindsFor(providerWith('k'))]).toEqual(['text']);
    expect(geminiBatchAdapter.kindsFor(providerWith('k', { kind: 'vertex', project: 'p', location: 'global' })).size).toBe(0);
  });

  it('encodes lines as the live generate does, and maps each result back by custom id with its usage decoded as the live generate reads it', async () => {
    const provider = providerWith('k');
    const requests = [ask('first question here'), ask('second question'), ask('third')];
    const encoded = requests.map((request, index) => ({ customId: `line-${index}`, body: geminiBatchAdapter.encodeText(request, model) }));
    expect(encoded[0]!.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'first question here' }] }], generationConfig: { maxOutputTokens: 50 } });

    const created = await geminiBatchAdapter.create(provider, model, 'text', encoded, signal());
    expect(created.id).toMatch(/^batches\//);
    expect(created.ended).toBe(false);
    const ended = await untilEnded(provider, created.id);
    const results = await geminiBatchAdapter.results(provider, ended, signal());
    expect(results.map((result) => result.customId).sort()).toEqual(['line-0', 'line-1', 'line-2']);

    // The live generate of the same request, through the interactive adapter: same content and usage.
    const dispatcher = createProviderDispatcher(provider);
    try {
      for (const [index, request] of requests.entries()) {
        const result = results.find((entry) => entry.customId === `line-${index}`)!;
        if (result.kind !== 'succeeded') throw new Error(`line-${index} ended ${result.kind}`);
        const decoded = geminiBatchAdapter.decodeText(result.body, provider);
        const live = await geminiAdapter.generate(request, { provider, providerModel: model, signal: signal(), dispatcher });
        expect(decoded.usage.promptTokens).toBeGreaterThan(0);
        expect(decoded.usage.completionTokens).toBeGreaterThan(0);
        expect(decoded.usage).toEqual(live.usage);
        expect(decoded.content).toEqual(live.content);
        expect(decoded.finishReason).toBe(live.finishReason);
      }
    } finally {
      await dispatcher.close();
    }
  });

  it('gives an errored request its HTTP status and the live error envelope (a fault directive), beside the others succeeded', async () => {
    const provider = providerWith('k');
    const requests = [
      { customId: 'good', body: geminiBatchAdapter.encodeText(ask('fine'), model) },
      { customId: 'limited', body: geminiBatchAdapter.encodeText(ask('too many [[sim:status=429]]'), model) },
      { customId: 'broken', body: geminiBatchAdapter.encodeText(ask('bad [[sim:status=400]]'), model) },
    ];
    const created = await geminiBatchAdapter.create(provider, model, 'text', requests, signal());
    const results = await geminiBatchAdapter.results(provider, await untilEnded(provider, created.id), signal());
    const byId = new Map(results.map((result) => [result.customId, result]));
    expect(byId.get('good')?.kind).toBe('succeeded');
    expect(byId.get('limited')).toMatchObject({ kind: 'errored', status: 429, error: { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } } });
    expect(byId.get('broken')).toMatchObject({ kind: 'errored', status: 400, error: { error: { code: 400, status: 'INVALID_ARGUMENT' } } });
  });

  it('cancels a batch: it ends cancelled and every request comes back canceled', async () => {
    const provider = providerWith('k');
    const requests = ['a', 'b'].map((customId) => ({ customId, body: geminiBatchAdapter.encodeText(ask(`question ${customId}`), model) }));
    const created = await geminiBatchAdapter.create(provider, model, 'text', requests, signal());
    await geminiBatchAdapter.cancel(provider, created.id, signal());
    const ended = await geminiBatchAdapter.retrieve(provider, created.id, signal());
    expect(ended.ended).toBe(true);
    expect(await geminiBatchAdapter.results(provider, ended, signal())).toEqual([
      { customId: 'a', kind: 'canceled' },
      { customId: 'b', kind: 'canceled' },
    ]);
  });

  it('refuses a bad API key as an UpstreamError 401, and an unknown batch as 404', async () => {
    const refused = geminiBatchAdapter.create(providerWith('wrong'), model, 'text', [{ customId: 'x', body: geminiBatchAdapter.encodeText(ask('hi'), model) }], signal());
    await expect(refused).rejects.toBeInstanceOf(UpstreamError);
    await expect(refused).rejects.toMatchObject({ status: 401, retryable: false });
    await expect(geminiBatchAdapter.retrieve(providerWith('k'), 'batches/nope', signal())).rejects.toMatchObject({ status: 404 });
  });

  it('takes only a batch name under the configured base URL', async () => {
    await expect(geminiBatchAdapter.retrieve(providerWith('k'), '../models/x', signal())).rejects.toMatchObject({ status: 400, retryable: false });
  });
});

/** A server answering every call with one fixed operation, for the ends the simulator does not reach (expiry, failure). */
async function withOperation(operation: Record<string, unknown>, run: (provider: ProviderConfig) => Promise<void>): Promise<void> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(operation));
  });
  const base = await listenLocally(server);
  try {
    await run({ ...providerWith('k'), baseUrl: `${base}/v1beta` });
  } finally {
    await closeServer(server);
  }
}

const inputOf = (...keys: string[]) => ({ requests: { requests: keys.map((key) => ({ request: { contents: [] }, metadata: { key } })) } });

describe('Gemini batch mode adapter: the ends of a batch', () => {
  it('matches inlined responses without metadata by their position among the requests; the unanswered of an expired batch end expired', async () => {
    const operation = {
      name: 'batches/b1',
      done: true,
      metadata: { state: 'BATCH_STATE_EXPIRED', inputConfig: inputOf('a', 'b') },
      response: { inlinedResponses: { inlinedResponses: [{ response: { candidates: [] } }, { error: { code: 14, message: 'try later' } }] } },
    };
    await withOperation(operation, async (provider) => {
      const state = await geminiBatchAdapter.retrieve(provider, 'batches/b1', signal());
      expect(state).toMatchObject({ id: 'batches/b1', ended: true });
      expect(await geminiBatchAdapter.results(provider, state, signal())).toEqual([
        { customId: 'a', kind: 'succeeded', body: { candidates: [] } },
        { customId: 'b', kind: 'errored', status: 503, error: { error: { code: 503, message: 'try later', status: 'UNAVAILABLE' } } },
      ]);
    });
    const expired = { name: 'batches/b2', done: true, metadata: { state: 'BATCH_STATE_EXPIRED', inputConfig: inputOf('a', 'b') } };
    await withOperation(expired, async (provider) => {
      const state = await geminiBatchAdapter.retrieve(provider, 'batches/b2', signal());
      expect(await geminiBatchAdapter.results(provider, state, signal())).toEqual([
        { customId: 'a', kind: 'expired' },
        { customId: 'b', kind: 'expired' },
      ]);
    });
  });

  it("errors every request of a failed batch with the batch's own error", async () => {
    const failed = { name: 'batches/b3', done: true, error: { code: 13, message: 'internal' }, metadata: { state: 'BATCH_STATE_FAILED', inputConfig: inputOf('only') } };
    await withOperation(failed, async (provider) => {
      const state = await geminiBatchAdapter.retrieve(provider, 'batches/b3', signal());
      expect(await geminiBatchAdapter.results(provider, state, signal())).toEqual([
        { customId: 'only', kind: 'errored', status: 500, error: { error: { code: 500, message: 'internal', status: 'INTERNAL' } } },
      ]);
    });
  });

  it('refuses a batch over the 20 MB of inline requests without sending it', async () => {
    const big = [{ customId: 'big', body: { contents: [{ role: 'user', parts: [{ text: 'x'.repeat(20_000_000) }] }] } }];
    await expect(geminiBatchAdapter.create(providerWith('k'), model, 'text', big, signal())).rejects.toMatchObject({ status: 413, retryable: false });
    expect(simulator.stats().batches).toEqual({ files: 0, batches: 0 });
  });
});
