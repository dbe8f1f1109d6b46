import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../core/stream-part.js';
import { closeServer, listenLocally } from '../shared/__fixtures__/listen-locally.js';
import { parseSse } from '../shared/parse-sse.js';
import { createProviderDispatcher } from '../shared/send-request.js';
import { UpstreamError } from '../shared/upstream-error.js';
import { convertResponse } from './convert-response.js';
import { convertStream } from './convert-stream.js';
import { geminiAdapter } from './gemini-adapter.js';
import type { GeminiResponse } from './gemini-wire-types.js';
import { readFixture, readJsonFixture } from './__fixtures__/read-fixture.js';

// Recorded Gemini answers (sources in __fixtures__/SOURCES.md), replayed through the adapter.
async function* bytesOf(text: string): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let offset = 0; offset < bytes.length; offset += 41) yield bytes.slice(offset, offset + 41);
}

async function convertRecording(name: string): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of convertStream(parseSse(bytesOf(readFixture(name))), { providerId: 'google' })) parts.push(part);
  return parts;
}

describe('Gemini recorded answers', () => {
  it('bills the tool-use prompt (toolUsePromptTokenCount) as input', () => {
    const result = convertResponse(readJsonFixture<GeminiResponse>('tool-use-prompt-usage.json'));
    // totalTokenCount 251 = 55 prompt + 89 tool-use prompt + 51 candidates + 56 thoughts.
    expect(result.usage).toEqual({ promptTokens: 144, completionTokens: 107, reasoningTokens: 56 });
  });

  it('bills the tool-use prompt of a search-grounded stream as input', async () => {
    const parts = await convertRecording('stream-tool-use-prompt-usage.sse');
    // totalTokenCount 695 = 17 prompt + 308 tool-use prompt + 37 candidates + 333 thoughts.
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: 'stop', usage: { promptTokens: 325, completionTokens: 370, reasoningTokens: 333 } });
  });

  it('assembles streamed partialArgs into one named call per function call', async () => {
    const parts = await convertRecording('stream-partial-args.sse');
    const calls = parts.filter((part) => part.type === 'tool-call-start');
    expect(calls).toEqual([
      { type: 'tool-call-start', index: 0, id: expect.any(String), name: 'getWeather' },
      { type: 'tool-call-start', index: 1, id: expect.any(String), name: 'getWeather' },
    ]);
    const argumentsOf = (index: number) => parts.flatMap((part) => (part.type === 'tool-call-delta' && part.index === index ? [part.argumentsDelta] : []));
    expect(argumentsOf(0).map((text) => JSON.parse(text))).toEqual([{ location: 'Boston' }]);
    expect(argumentsOf(1).map((text) => JSON.parse(text))).toEqual([{ location: 'San Francisco' }]);
    // The thought signature on the first call's opening part is kept before that call.
    expect(parts[1]).toMatchObject({ type: 'reasoning-signature', signature: expect.stringMatching(/^CiMBjz1r/) });
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool_calls', usage: { promptTokens: 26, completionTokens: 155 } });
  });

  it('assembles nested objects and arrays from their JSON paths', async () => {
    const parts = await convertRecording('stream-partial-args-nested.sse');
    expect(parts.filter((part) => part.type === 'tool-call-start')).toEqual([{ type: 'tool-call-start', index: 0, id: expect.any(String), name: 'cookRecipe' }]);
    const deltas = parts.flatMap((part) => (part.type === 'tool-call-delta' ? [part.argumentsDelta] : []));
    expect(deltas).toHaveLength(1);
    const { recipe } = JSON.parse(deltas[0]!) as { recipe: { name: string; ingredients: Array<{ name: string; amount: string }>; steps: string[] } };
    expect(recipe.ingredients).toHaveLength(10);
    expect(recipe.ingredients[0]).toEqual({ amount: '16 oz', name: 'Lasagna noodles' });
    expect(recipe.steps).toHaveLength(10);
    expect(recipe.steps.every((step) => typeof step === 'string' && step.length > 0)).toBe(true);
    expect(typeof recipe.name).toBe('string');
  });

  it("turns a 429's RetryInfo retryDelay into retryAfterSeconds", async () => {
    const server = createServer((_request, response) => {
      response.writeHead(429, { 'content-type': 'application/json' });
      response.end(readFixture('rate-limit-retry-info.json'));
    });
    const baseUrl = await listenLocally(server);
    const provider = {
      id: 'google', name: 'Google', api: 'gemini' as const, baseUrl: `${baseUrl}/v1beta`, auth: { kind: 'api-key-header' as const, header: 'x-goog-api-key', key: 'k' }, enabled: true,
      headers: {}, timeouts: { connectMs: 1000, firstByteMs: 2000, idleMs: 2000 },
    };
    const dispatcher = createProviderDispatcher(provider);
    try {
      const context = { provider, providerModel: 'gemini-2.5-flash', signal: new AbortController().signal, dispatcher };
      const failure = await geminiAdapter
        .generate({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], maxTokens: 8, stream: false }, context)
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(UpstreamError);
      expect(failure).toMatchObject({ status: 429, retryable: true, retryAfterSeconds: 34.4 });
    } finally {
      await dispatcher.close();
      await closeServer(server);
    }
  });
});
