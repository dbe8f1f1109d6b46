import { describe, expect, it } from 'vitest';
import { convertRequest } from './convert-request.js';
import { convertResponse } from './convert-response.js';
import type { GeminiResponse } from './gemini-wire-types.js';
import { readJsonFixture } from './__fixtures__/read-fixture.js';

describe('convertResponse', () => {
  it('decodes a text answer with ids, model and usage (cached and thinking tokens)', () => {
    const result = convertResponse(readJsonFixture<GeminiResponse>('text.json'));
    expect(result).toEqual({
      providerResponseId: '8TJwaK2bHNTHnvgPk6Xo0Qs',
      providerModel: 'gemini-2.5-flash',
      content: [{ type: 'text', text: "The capital of France is **Paris**. It has been the country's capital since 987." }],
      finishReason: 'stop',
      usage: { promptTokens: 2071, cachedPromptTokens: 2048, completionTokens: 66, reasoningTokens: 45 },
    });
  });

  it('decodes parallel function calls with stable ids, and the signature before the first call', () => {
    const result = convertResponse(readJsonFixture<GeminiResponse>('parallel-function-calls.json'));
    expect(result.finishReason).toBe('tool_calls');
    expect(result.content).toEqual([
      { type: 'reasoning', text: '', signature: 'CiQBcsjafCdfhNqXTiKwYL1k6QDAfAz1W1zRfvPl7nZGmlUPzXIKYwFyyNp8p5Lu0PqRS/mL3CqJrm9YKp+Le6Y=' },
      { type: 'tool-call', id: 'call_b36LacjwM668nsEP2tbsgQQ_0', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
      { type: 'tool-call', id: 'call_b36LacjwM668nsEP2tbsgQQ_1', name: 'get_weather', arguments: '{"city":"Tokyo","unit":"celsius"}' },
    ]);
    expect(result.usage).toEqual({ promptTokens: 96, completionTokens: 215, reasoningTokens: 177 });
  });

  it('decodes thought summaries as reasoning that carries the signature of the answer after it', () => {
    const result = convertResponse(readJsonFixture<GeminiResponse>('thinking.json'));
    expect(result.content).toHaveLength(2);
    expect(result.content[0]).toMatchObject({ type: 'reasoning', signature: expect.stringMatching(/^EvsFCvgF/) });
    expect(result.content[0]).toHaveProperty('text', expect.stringContaining('Counting the letters'));
    expect(result.content[1]).toEqual({ type: 'text', text: 'There are **3** "r"s in strawberry: st**r**awbe**rr**y.' });
  });

  it('round-trips signatures: a decoded turn sent back puts each signature on its original part', () => {
    for (const name of ['parallel-function-calls.json', 'thinking.json']) {
      const response = readJsonFixture<GeminiResponse>(name);
      const result = convertResponse(response);
      const body = convertRequest({ stream: false, messages: [{ role: 'assistant', content: result.content }] });
      const original = (response.candidates?.[0].content?.parts ?? []).filter((part) => !part.thought);
      expect(body.contents[0].parts.map((part) => part.thoughtSignature)).toEqual(original.map((part) => part.thoughtSignature));
      expect(body.contents[0].parts.map((part) => part.functionCall?.args ?? part.text)).toEqual(original.map((part) => part.functionCall?.args ?? part.text));
    }
  });

  it('uses the function call id Gemini sends when there is one', () => {
    const result = convertResponse({
      responseId: 'r1',
      candidates: [{ content: { parts: [{ functionCall: { id: 'fc-9', name: 'now' } }] }, finishReason: 'STOP' }],
    });
    expect(result.content).toEqual([{ type: 'tool-call', id: 'fc-9', name: 'now', arguments: '{}' }]);
  });

  it('reports a prompt blocked before generation as content_filter, with the prompt tokens', () => {
    const result = convertResponse(readJsonFixture<GeminiResponse>('safety-block.json'));
    expect(result).toMatchObject({ content: [], finishReason: 'content_filter', usage: { promptTokens: 14, completionTokens: 0 } });
  });

  it('reports a candidate stopped for safety or length, keeping the text produced so far', () => {
    const stopped = (finishReason: string) => convertResponse({ candidates: [{ content: { parts: [{ text: 'Partial' }] }, finishReason }] });
    expect(stopped('SAFETY')).toMatchObject({ finishReason: 'content_filter', content: [{ type: 'text', text: 'Partial' }] });
    expect(stopped('MAX_TOKENS').finishReason).toBe('length');
    expect(stopped('MALFORMED_FUNCTION_CALL').finishReason).toBe('other');
  });

  it('joins adjacent text parts and ignores parts it does not model', () => {
    const result = convertResponse({
      candidates: [{ content: { parts: [{ text: 'a' }, { text: '' }, { inlineData: { mimeType: 'image/png', data: 'AA' } }, { text: 'b' }] }, finishReason: 'STOP' }],
    });
    expect(result.content).toEqual([{ type: 'text', text: 'ab' }]);
    expect(result.usage).toEqual({ promptTokens: 0, completionTokens: 0, estimated: true });
  });
});
