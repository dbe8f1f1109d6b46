import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../errors/upstream-error.js';
import { loadFixture } from './__fixtures__/load-fixture.js';
import { convertChatCompletionResponse } from './convert-response.js';

function convert(value: unknown) {
  return convertChatCompletionResponse(JSON.stringify(value), 'acme');
}

function completion(message: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { id: 'chatcmpl-1', object: 'chat.completion', model: 'm', choices: [{ index: 0, message, finish_reason: 'stop' }], ...extra };
}

describe('convertChatCompletionResponse', () => {
  it('converts a plain text answer', () => {
    expect(convertChatCompletionResponse(loadFixture('text.json'), 'openai')).toEqual({
      providerResponseId: 'chatcmpl-BPr3GvYxQmzK1c9sTn2Lw0aEfJ7dD',
      providerModel: 'gpt-4o-mini-2024-07-18',
      content: [{ type: 'text', text: 'The capital of France is Paris.' }],
      finishReason: 'stop',
      usage: { promptTokens: 14, completionTokens: 8, cachedPromptTokens: 0, reasoningTokens: 0 },
    });
  });

  it('converts parallel tool calls in order', () => {
    const result = convertChatCompletionResponse(loadFixture('tool-calls.json'), 'openai');
    expect(result.finishReason).toBe('tool_calls');
    expect(result.content).toEqual([
      { type: 'tool-call', id: 'call_Wq8fKx2VbN4mRt1ZcY7hLp0s', name: 'get_weather', arguments: '{"city": "Paris", "unit": "celsius"}' },
      { type: 'tool-call', id: 'call_Hj3nPq6TsV9xBd2GkL5mWr8e', name: 'get_local_time', arguments: '{"timezone": "Europe/Paris"}' },
    ]);
  });

  it('puts DeepSeek reasoning_content first, then the text', () => {
    const result = convertChatCompletionResponse(loadFixture('reasoning-deepseek.json'), 'deepseek');
    expect(result.content).toEqual([
      { type: 'reasoning', text: 'Okay, the user asks for 9.11 vs 9.9. 9.9 is 9.90, which is larger.' },
      { type: 'text', text: '9.9 is larger.' },
    ]);
    expect(result.usage).toEqual({ promptTokens: 18, completionTokens: 96, cachedPromptTokens: 0, reasoningTokens: 81 });
  });

  it("reads OpenRouter's reasoning field", () => {
    const result = convert(completion({ role: 'assistant', content: 'Yes.', reasoning: 'Checking the premise.', reasoning_details: [] }));
    expect(result.content).toEqual([
      { type: 'reasoning', text: 'Checking the premise.' },
      { type: 'text', text: 'Yes.' },
    ]);
  });

  it('reads reasoning once when a server sends both reasoning_content and reasoning', () => {
    const result = convert(completion({ role: 'assistant', content: 'Yes.', reasoning_content: 'Same text.', reasoning: 'Same text.' }));
    expect(result.content[0]).toEqual({ type: 'reasoning', text: 'Same text.' });
  });

  it("reads Mistral's chunked content with thinking", () => {
    const result = convert(
      completion({
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: [{ type: 'text', text: 'Two plus two.' }] },
          { type: 'text', text: '4' },
        ],
      }),
    );
    expect(result.content).toEqual([
      { type: 'reasoning', text: 'Two plus two.' },
      { type: 'text', text: '4' },
    ]);
  });

  it('shows a refusal as text', () => {
    const result = convert(completion({ role: 'assistant', content: null, refusal: "I can't help with that." }));
    expect(result.content).toEqual([{ type: 'text', text: "I can't help with that." }]);
  });

  it('reads cached and reasoning tokens', () => {
    expect(convertChatCompletionResponse(loadFixture('cached-usage.json'), 'openai').usage).toEqual({
      promptTokens: 2006,
      completionTokens: 300,
      cachedPromptTokens: 1920,
      reasoningTokens: 256,
    });
    expect(convertChatCompletionResponse(loadFixture('cached-usage-deepseek.json'), 'deepseek').usage).toEqual({
      promptTokens: 1530,
      completionTokens: 9,
      cachedPromptTokens: 1472,
    });
  });

  it('marks usage as estimated when the server sends none', () => {
    expect(convert(completion({ role: 'assistant', content: 'Hi' })).usage).toEqual({ promptTokens: 0, completionTokens: 0, estimated: true });
  });

  it("takes vLLM's stop_reason as the stop sequence", () => {
    const body = { choices: [{ index: 0, message: { role: 'assistant', content: 'a' }, finish_reason: 'stop', stop_reason: 'END' }] };
    expect(convert(body).stopSequence).toBe('END');
  });

  it('gives a tool call without an id a generated one', () => {
    const result = convert(completion({ role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] }));
    expect(result.content).toEqual([{ type: 'tool-call', id: expect.stringMatching(/^call_[0-9a-f]{32}$/), name: 'f', arguments: '{}' }]);
  });

  it('maps the finish reason', () => {
    const body = { choices: [{ index: 0, message: { role: 'assistant', content: 'cut' }, finish_reason: 'length' }] };
    expect(convert(body).finishReason).toBe('length');
  });

  it('ignores fields it does not read, and wrong types in those it does', () => {
    const result = convert(completion({ role: 'assistant', content: 'ok', audio: null, annotations: [{ type: 'url_citation' }] }, { id: 42, model: null, moderation: {} }));
    expect(result).toEqual({ content: [{ type: 'text', text: 'ok' }], finishReason: 'stop', usage: { promptTokens: 0, completionTokens: 0, estimated: true } });
  });

  describe('errors', () => {
    it('throws an error sent with a 2xx status, keeping its status', () => {
      const convertError = () => convertChatCompletionResponse(loadFixture('error-in-body.json'), 'openrouter');
      expect(convertError).toThrow(UpstreamError);
      expect(convertError).toThrow(
        expect.objectContaining({ provider: 'openrouter', status: 429, retryable: true, message: 'openrouter reported an error: Provider returned error' }),
      );
    });

    it("throws vLLM's error object", () => {
      expect(() => convert({ object: 'error', message: 'max_tokens is too large', type: 'BadRequestError', param: null, code: 400 })).toThrow(
        expect.objectContaining({ status: 400, retryable: false }),
      );
    });

    it('throws a retryable 502 for a body that is not JSON', () => {
      expect(() => convertChatCompletionResponse('<html>Bad gateway</html>', 'acme')).toThrow(
        expect.objectContaining({ name: 'UpstreamError', status: 502, retryable: true, body: '<html>Bad gateway</html>' }),
      );
    });

    it('throws for an answer without choices', () => {
      expect(() => convert({ id: 'x', choices: [] })).toThrow(expect.objectContaining({ status: 502, message: 'acme answered without a choice' }));
    });

    it('throws for a tool call without a function name', () => {
      expect(() => convert(completion({ role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { arguments: '{}' } }] }))).toThrow(
        UpstreamError,
      );
    });
  });
});
