import { describe, expect, it } from 'vitest';
import { countPromptTokens, countWords, MESSAGE_OVERHEAD_TOKENS } from './count-tokens.js';

describe('countWords', () => {
  it('counts whitespace-separated words, whatever the whitespace', () => {
    expect(countWords('')).toBe(0);
    expect(countWords('   ')).toBe(0);
    expect(countWords('one')).toBe(1);
    expect(countWords('  one two\tthree\nfour\r\nfive  ')).toBe(5);
  });

  it('treats punctuation and JSON as part of a word', () => {
    expect(countWords('{"city":"Paris"} done.')).toBe(2);
    expect(countWords('[[sim:status=500]] hi')).toBe(2);
  });
});

describe('countPromptTokens', () => {
  it('adds the per-message overhead to the words of every message', () => {
    const messages = [{ text: 'be brief' }, { text: 'hello there' }, { text: '' }];
    expect(countPromptTokens(messages)).toBe(4 + 3 * MESSAGE_OVERHEAD_TOKENS);
  });
});
