import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../core/stream-part.js';
import { convertAnthropicResponse } from './convert-response.js';
import { convertSseText, readFixture, readJsonFixture } from './__fixtures__/read-fixture.js';
import type { AnthropicMessage } from '../../wire/anthropic/wire-types.js';

// Recorded Anthropic answers (sources in __fixtures__/SOURCES.md), replayed through the converters.
const ofType = <T extends StreamPart['type']>(parts: StreamPart[], type: T) =>
  parts.filter((part): part is Extract<StreamPart, { type: T }> => part.type === type);

describe('Anthropic recorded answers', () => {
  it('bills every compaction pass (usage.iterations), not only the last one', async () => {
    const result = convertAnthropicResponse(readJsonFixture<AnthropicMessage>('recorded-compaction-response.json'));
    // Passes: 60385 in / 592 out (compaction) + 682 in / 1320 out (message); the top level shows only the last.
    expect(result.usage).toEqual({ promptTokens: 61067, completionTokens: 1912 });
    const parts = await convertSseText(readFixture('recorded-compaction-stream.sse'));
    expect(parts.at(-1)).toMatchObject({ type: 'finish', usage: { promptTokens: 60997, completionTokens: 3341 } });
  });

  it('keeps a refusal\'s stop_details, in a body and in a stream', async () => {
    const expected = {
      type: 'refusal',
      category: 'cyber',
      explanation: "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy.",
    };
    const result = convertAnthropicResponse(readJsonFixture<AnthropicMessage>('recorded-refusal-response.json'));
    expect(result.finishReason).toBe('content_filter');
    expect(result.stopDetails).toMatchObject(expected);
    const parts = await convertSseText(readFixture('recorded-refusal-stream.sse'));
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'content_filter', stopDetails: expected });
  });

  it("reports message_start's input count on the start part", async () => {
    const parts = await convertSseText(readFixture('recorded-refusal-stream.sse'));
    expect(parts[0]).toEqual({
      type: 'start',
      providerResponseId: 'msg_01RefusalStreamAbcdefghijk',
      providerModel: 'claude-fable-5',
      usage: { promptTokens: 18, completionTokens: 0 },
    });
  });

  it('fails a stream in which a second message_start arrives mid-stream', async () => {
    const parts = await convertSseText(readFixture('recorded-spliced-message-start.sse'));
    expect(parts.at(-1)).toMatchObject({ type: 'error', error: { code: 'upstream_error', message: expect.stringContaining('second message_start') } });
    expect(ofType(parts, 'finish')).toEqual([]);
    // Nothing of the second response is mixed into the first.
    expect(ofType(parts, 'reasoning-signature').map((part) => part.signature)).toEqual(['sig-first']);
  });

  it("takes a tool's whole input from content_block_start", async () => {
    const parts = await convertSseText(readFixture('recorded-tool-input-in-block-start.sse'));
    const rollDie = ofType(parts, 'tool-call-start').find((part) => part.name === 'rollDie');
    expect(rollDie).toBeDefined();
    const input = ofType(parts, 'tool-call-delta').filter((part) => part.index === rollDie!.index).map((part) => part.argumentsDelta).join('');
    expect(JSON.parse(input)).toEqual({ player: 'player1' });
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool_calls' });
  });

  it('reads content blocks and the stop reason sent inside message_start', async () => {
    const parts = await convertSseText(readFixture('recorded-content-in-message-start.sse'));
    expect(parts.slice(1)).toEqual([
      { type: 'tool-call-start', index: 0, id: 'toolu_015dGLMbwBKv1ZRQr6KdJzeH', name: 'rollDie' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"player":"player2"}' },
      { type: 'finish', finishReason: 'tool_calls', usage: expect.any(Object) },
    ]);
  });

  it('keeps streamed redacted_thinking blocks', async () => {
    const parts = await convertSseText(readFixture('recorded-redacted-thinking-stream.sse'));
    const redacted = ofType(parts, 'reasoning-redacted');
    expect(redacted).toHaveLength(2);
    expect(redacted[0]!.data).toMatch(/^EqkECkYIBxgCKkA8/);
    expect(redacted[1]!.data).toMatch(/^EtgBCkYIBxgCKkDQ/);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop', usage: { promptTokens: 92, completionTokens: 189 } });
  });

  it('keeps web-search citations on the text they cite, in a body and in a stream', async () => {
    const result = convertAnthropicResponse(readJsonFixture<AnthropicMessage>('recorded-web-search-response.json'));
    const cited = result.content.flatMap((part) => (part.type === 'text' ? (part.citations ?? []) : []));
    // 3 citations in the text, then the 8 other pages the searches found, as sources of the answer.
    expect(cited).toHaveLength(11);
    expect(cited.slice(3).every((citation) => citation.citedText === undefined)).toBe(true);
    expect(cited[0]).toMatchObject({ url: 'https://acecomments.mu.nu/?post=411647', title: expect.any(String), citedText: expect.any(String), encryptedIndex: expect.any(String) });

    const parts = await convertSseText(readFixture('recorded-web-search-stream.sse'));
    const citations = ofType(parts, 'citation');
    // 14 citations in the text, then 6 uncited search results as sources of the whole answer.
    expect(citations).toHaveLength(20);
    expect(citations.slice(14).every((part) => part.textLength === undefined)).toBe(true);
    // Each text citation covers the block it arrived in: a positive length, never more than all text so far.
    let streamed = 0;
    for (const part of parts) {
      if (part.type === 'text-delta') streamed += part.text.length;
      if (part.type === 'citation' && part.citation.citedText !== undefined) {
        expect(part.textLength).toBeGreaterThan(0);
        expect(part.textLength).toBeLessThanOrEqual(streamed);
      }
    }
    expect(citations[0]!.citation).toMatchObject({ url: expect.stringMatching(/^https:\/\/www\.apple\.com\/newsroom\//), encryptedIndex: expect.any(String) });
  });
});
