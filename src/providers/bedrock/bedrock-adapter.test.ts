import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../config/types.js';
import type { TextRequest } from '../../core/text-request.js';
import { UpstreamError } from '../../errors/upstream-error.js';
import { simulatorAwsCredentials, startSimulator, type Simulator } from '@switchyard/simulator';
import type { CallContext } from '../provider-adapter.js';
import { collect } from '../shared/__fixtures__/collect.js';
import { createProviderDispatcher, type ProviderDispatcher } from '../shared/send-request.js';
import { bedrockAdapter } from './bedrock-adapter.js';

/**
 * The adapter against the simulator's Converse routes over real HTTP, signed with SigV4: answers,
 * streams, and Bedrock's error types as the `UpstreamError`s routing acts on (retry or not).
 */
let simulator: Simulator;
let provider: ProviderConfig;
let dispatcher: ProviderDispatcher;

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: 'sim-key', replyTokens: 5 });
  provider = {
    id: 'bedrock', name: 'Bedrock', api: 'bedrock', baseUrl: `${simulator.baseUrls.bedrock}/`, enabled: true, headers: {},
    auth: { kind: 'aws-sigv4', ...simulatorAwsCredentials, region: 'eu-west-1', service: 'bedrock' },
    platform: { kind: 'bedrock', region: 'eu-west-1' },
    timeouts: { connectMs: 1000, firstByteMs: 2000, idleMs: 2000 },
  };
  dispatcher = createProviderDispatcher(provider);
});
afterAll(async () => {
  await dispatcher.close();
  await simulator.close();
});

const context = (): CallContext => ({ provider, providerModel: 'amazon.nova-lite-v1:0', signal: new AbortController().signal, dispatcher });
const ask = (text: string, stream = false): TextRequest => ({ messages: [{ role: 'user', content: [{ type: 'text', text }] }], maxTokens: 50, stream });

describe('bedrockAdapter', () => {
  it('answers through Converse, signed for the provider’s region', async () => {
    const result = await bedrockAdapter.generate(ask('hi there'), context());
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'Simulated reply from amazon.nova-lite-v1:0: hi' }], finishReason: 'stop', usage: { completionTokens: 5 } });
    expect(simulator.lastRequest('bedrock')!.headers.authorization).toMatch(/\/eu-west-1\/bedrock\/aws4_request/);
  });

  it('streams through ConverseStream', async () => {
    const parts = await collect(await bedrockAdapter.stream(ask('hi there', true), context()));
    expect(parts.flatMap((part) => (part.type === 'text-delta' ? [part.text] : [])).join('')).toBe('Simulated reply from amazon.nova-lite-v1:0: hi');
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', usage: { completionTokens: 5 } });
  });

  it.each([
    { status: 429, type: 'ThrottlingException', retryable: true },
    { status: 503, type: 'ServiceUnavailableException', retryable: true },
    { status: 500, type: 'InternalServerException', retryable: true },
    { status: 400, type: 'ValidationException', retryable: false },
    { status: 403, type: 'AccessDeniedException', retryable: false },
    { status: 404, type: 'ResourceNotFoundException', retryable: false },
  ])('rejects an error answer ($type) as an UpstreamError routing may retry: $retryable', async ({ status, type, retryable }) => {
    const failure = await bedrockAdapter.generate(ask(`[[sim:status=${status}]] hi`), context()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ status, retryable, message: expect.stringContaining(`(${type})`) });
  });

  it('rejects a stream whose first frame is an exception, so that routing can still fail over', async () => {
    const failure = await bedrockAdapter.stream(ask('[[sim:error_after=0]] hi', true), context()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 503, retryable: true, message: expect.stringContaining('serviceUnavailableException') });
  });
});

describe('bedrockAdapter.refusesTemperatureWithTopP', () => {
  // Generation asks the protocol (drop-unmet-preferences): Converse passes both settings to the
  // model, so Claude's recent families refuse them together there as on Anthropic's own wire.
  it.each(['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'anthropic.claude-opus-4-1-20250805-v1:0'])('%s takes one of the two', (model) =>
    expect(bedrockAdapter.refusesTemperatureWithTopP?.(model)).toBe(true),
  );

  it.each(['anthropic.claude-3-haiku-20240307-v1:0', 'us.amazon.nova-lite-v1:0', 'mistral.mistral-large-2407-v1:0'])('%s takes both', (model) =>
    expect(bedrockAdapter.refusesTemperatureWithTopP?.(model)).toBe(false),
  );
});
