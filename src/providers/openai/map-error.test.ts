import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../errors/upstream-error.js';
import { mapInBandError } from './map-error.js';

describe('mapInBandError', () => {
  it('maps an OpenAI error object to a retryable 502, keeping the raw text', () => {
    const raw = '{"error":{"message":"The server had an error","type":"server_error","code":null}}';
    const error = mapInBandError(JSON.parse(raw), 'openai', raw);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ provider: 'openai', status: 502, retryable: true, code: 'upstream_error', body: raw });
    expect(error?.message).toBe('openai reported an error: The server had an error');
  });

  it('takes an HTTP status from a numeric code (OpenRouter)', () => {
    expect(mapInBandError({ error: { code: 400, message: 'context too long' } }, 'openrouter', '')).toMatchObject({ status: 400, retryable: false });
    expect(mapInBandError({ error: { code: 'rate_limit_exceeded', message: 'slow down' } }, 'openai', '')).toMatchObject({ status: 502 });
    expect(mapInBandError({ error: { code: 42, message: 'odd' } }, 'acme', '')).toMatchObject({ status: 502 });
  });

  it("maps vLLM's top-level error object", () => {
    expect(mapInBandError({ object: 'error', message: 'bad top_k', type: 'BadRequestError', code: 400 }, 'vllm', '')).toMatchObject({
      status: 400,
      message: 'vllm reported an error: bad top_k',
    });
  });

  it('maps a plain string error', () => {
    expect(mapInBandError({ error: 'model not loaded' }, 'ollama', '')?.message).toBe('ollama reported an error: model not loaded');
  });

  it('gives an error without a message a placeholder', () => {
    expect(mapInBandError({ error: {} }, 'acme', '')?.message).toBe('acme reported an error: no error message');
  });

  it('answers undefined for a record that is not an error', () => {
    expect(mapInBandError({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [] }, 'acme', '')).toBeUndefined();
    expect(mapInBandError({ error: null, choices: [] }, 'acme', '')).toBeUndefined();
  });
});
