import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@switchyard/simulator';
import type { ProviderConfig } from '../../config/types.js';
import type { TextRequest } from '../../core/text-request.js';
import { UpstreamError } from '../../errors/upstream-error.js';
import { providerBatchAdapterOf } from '../batch-adapters.js';
import { anthropicBatchAdapter } from './batch-adapter.js';

/**
 * The Message Batches adapter against the simulator's Message Batches API over real HTTP: a batch
 * created from canonical requests, polled to its end, its results read back as the live call
 * reads a Message; a cancel that ends the requests not run as canceled.
 */
let fast: Simulator;
let slow: Simulator;

beforeAll(async () => {
  fast = await startSimulator({ apiKey: 'sim-key', batchDurationMs: 50 });
  slow = await startSimulator({ apiKey: 'sim-key', batchDurationMs: 3_600_000 });
});
afterAll(async () => {
  await fast.close();
  await slow.close();
});

function providerOf(simulator: Simulator, overrides: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    id: 'anthropic',
    name: 'Anthropic',
    api: 'anthropic',
    baseUrl: simulator.baseUrls.anthropic,
    auth: { kind: 'api-key-header', header: 'x-api-key', key: 'sim-key' },
    enabled: true,
    headers: {},
    timeouts: { connectMs: 1000, firstByteMs: 2000, idleMs: 2000 },
    ...overrides,
  };
}

const ask = (text: string): TextRequest => ({ messages: [{ role: 'user', content: [{ type: 'text', text }] }], maxTokens: 40, stream: false });
const signal = () => new AbortController().signal;

describe('anthropicBatchAdapter', () => {
  it('is the registry’s entry for anthropic, serving text lines on Anthropic’s own API only', () => {
    expect(providerBatchAdapterOf('anthropic')).toBe(anthropicBatchAdapter);
    expect([...anthropicBatchAdapter.kindsFor(providerOf(fast))]).toEqual(['text']);
    expect(anthropicBatchAdapter.kindsFor(providerOf(fast, { platform: { kind: 'bedrock', region: 'eu-west-1' } })).size).toBe(0);
    expect(anthropicBatchAdapter.kindsFor(providerOf(fast, { platform: { kind: 'vertex', project: 'p', location: 'global' } })).size).toBe(0);
  });

  it('encodes the live Messages body, runs the batch to its end and reads each result as the live call reads a Message', async () => {
    const provider = providerOf(fast);
    const body = anthropicBatchAdapter.encodeText(ask('Hello batch'), 'claude-sim');
    expect(body).toMatchObject({ model: 'claude-sim', max_tokens: 40, messages: [{ role: 'user' }] });
    expect(body.stream).toBeUndefined();
    const created = await anthropicBatchAdapter.create(provider, 'claude-sim', 'text', [{ customId: 'line-1', body }, { customId: 'line-2', body: anthropicBatchAdapter.encodeText(ask('Again'), 'claude-sim') }], signal());
    expect(created).toMatchObject({ id: expect.stringMatching(/^msgbatch_/), ended: false });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const state = await anthropicBatchAdapter.retrieve(provider, created.id, signal());
    expect(state.ended).toBe(true);
    const results = await anthropicBatchAdapter.results(provider, state, signal());
    expect(results.map((result) => [result.customId, result.kind])).toEqual([
      ['line-1', 'succeeded'],
      ['line-2', 'succeeded'],
    ]);
    const first = results[0]!;
    if (first.kind !== 'succeeded') throw new Error('unreachable');
    const text = anthropicBatchAdapter.decodeText(first.body, provider, ask('Hello batch'));
    expect(text.content[0]).toMatchObject({ type: 'text' });
    expect(text.usage.promptTokens).toBe((first.body.usage as { input_tokens: number }).input_tokens);
    expect(text.usage.completionTokens).toBeGreaterThan(0);
  });

  it('cancels a running batch: it ends with its requests canceled', async () => {
    const provider = providerOf(slow);
    const created = await anthropicBatchAdapter.create(provider, 'claude-sim', 'text', [{ customId: 'line-7', body: anthropicBatchAdapter.encodeText(ask('Never'), 'claude-sim') }], signal());
    expect((await anthropicBatchAdapter.retrieve(provider, created.id, signal())).ended).toBe(false);
    await anthropicBatchAdapter.cancel(provider, created.id, signal());
    const state = await anthropicBatchAdapter.retrieve(provider, created.id, signal());
    expect(state.ended).toBe(true);
    expect(await anthropicBatchAdapter.results(provider, state, signal())).toEqual([{ customId: 'line-7', kind: 'canceled' }]);
  });

  it('rejects with an UpstreamError when the provider refuses a call', async () => {
    const provider = providerOf(fast, { auth: { kind: 'api-key-header', header: 'x-api-key', key: 'wrong' } });
    await expect(anthropicBatchAdapter.retrieve(provider, 'msgbatch_missing', signal())).rejects.toBeInstanceOf(UpstreamError);
    await expect(anthropicBatchAdapter.retrieve(providerOf(fast), 'msgbatch_missing', signal())).rejects.toMatchObject({ status: 404 });
  });
});
