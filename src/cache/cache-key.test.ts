import { describe, expect, it } from 'vitest';
import { cacheKeyOf, canonicalJson } from './cache-key.js';

describe('the response cache key', () => {
  const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2 };

  it('does not depend on key order, `stream` or `stream_options`', () => {
    const reordered = { temperature: 0.2, messages: [{ content: 'hi', role: 'user' }], model: 'm', stream: true, stream_options: { include_usage: true } };
    expect(cacheKeyOf('acc_1', '/chat/completions', reordered)).toBe(cacheKeyOf('acc_1', '/chat/completions', body));
  });

  it('differs by account, endpoint and any field of the body', () => {
    const key = cacheKeyOf('acc_1', '/chat/completions', body);
    expect(cacheKeyOf('acc_2', '/chat/completions', body)).not.toBe(key);
    expect(cacheKeyOf('acc_1', '/responses', body)).not.toBe(key);
    expect(cacheKeyOf('acc_1', '/chat/completions', { ...body, temperature: 0.3 })).not.toBe(key);
    // `stream` inside a message is content, not delivery: only the top level's is left out.
    expect(cacheKeyOf('acc_1', '/chat/completions', { ...body, messages: [{ role: 'user', content: 'hi', stream: true }] })).not.toBe(key);
  });

  it('writes canonical JSON with sorted keys and no undefined members', () => {
    expect(canonicalJson({ b: 1, a: [{ d: undefined, c: 'x' }, undefined] })).toBe('{"a":[{"c":"x"},null],"b":1}');
  });
});
