import { describe, expect, it } from 'vitest';
import { countRequestTokens, countTextTokens, longRun } from './count-tokens.js';

describe('token counting for unreported usage', () => {
  it('counts text with the o200k_base tokenizer', async () => {
    expect(await countTextTokens('')).toBe(0);
    expect(await countTextTokens('hello world')).toBe(2);
    expect(await countTextTokens('one two three')).toBe(3);
    expect(await countTextTokens('こんにちは世界')).toBe(2);
  });

  it('counts strings that spell special tokens as the text a user wrote, instead of refusing the text', async () => {
    // OpenAI's tiktoken (encode_ordinary, o200k_base) gives the same counts. Refused before: a
    // prompt quoting a chat template had no count, and count_tokens failed.
    expect(await countTextTokens('hi <|endoftext|> there')).toBe(9);
    expect(await countTextTokens('<|im_start|>user')).toBe(7);
  });

  // Byte-pair merging is quadratic in a piece's length, and such runs are one piece each. Whole,
  // 100,000 of these CJK characters took ~92 s with gpt-tokenizer (8,000 took 146 s with
  // js-tiktoken), 100,000 lowercase letters ~8 s. In slices of `longRun` all four take ~1.3 s
  // here: the test's timeout is the bound.
  it(
    'counts long runs of letters, symbols and whitespace in time linear in their length',
    async () => {
      let seed = 7;
      const pick = (alphabet: string, length: number) =>
        Array.from({ length }, () => {
          seed = (seed * 1103515245 + 12345) % 2147483648;
          return alphabet[seed % alphabet.length];
        }).join('');
      const cjk = await countTextTokens(pick('的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年', 100_000));
      expect(cjk).toBeGreaterThan(50_000);
      expect(cjk).toBeLessThan(150_000);
      const lower = await countTextTokens(pick('abcdefghijklmnopqrstuvwxyz', 100_000));
      expect(lower).toBeGreaterThan(30_000);
      expect(lower).toBeLessThan(100_000);
      expect(await countTextTokens('='.repeat(100_000))).toBeGreaterThan(0);
      expect(await countTextTokens(`${' '.repeat(100_000)}x`)).toBeGreaterThan(0);
      // Shorter than a slice, a run is counted whole, as the tokenizer counts it.
      expect(await countTextTokens('a'.repeat(longRun))).toBe(32);
    },
    20_000,
  );

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
