import { describe, expect, it } from 'vitest';
import { countRequestTokens, countTextTokens } from './count-tokens.js';

describe('token counting for unreported usage', () => {
  it('counts text with the o200k_base tokenizer', async () => {
    expect(await countTextTokens('')).toBe(0);
    expect(await countTextTokens('hello world')).toBe(2);
    expect(await countTextTokens('one two three')).toBe(3);
    expect(await countTextTokens('こんにちは世界')).toBe(2);
  });

  it('counts a request: every message, framing per message, images and tools', async () => {
    const plain = await countRequestTokens({ stream: false, messages: [{ role: 'user', content: [{ type: 'text', text: 'hello world' }] }] });
    // "hello world\n" is 3 tokens, plus 3 framing tokens for the one message.
    expect(plain).toBe(6);
    const withImage = await countRequestTokens({
      stream: false,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello world' }, { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } }] }],
    });
    expect(withImage).toBe(plain + 765);
    const withTools = await countRequestTokens({
      stream: false,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello world' }] }],
      tools: [{ name: 'get_weather', parameters: { type: 'object' } }],
    });
    expect(withTools).toBeGreaterThan(plain);
  });
});
