import { describe, expect, it } from 'vitest';
import { createJsonTemplate, groupPieces } from './protocol-adapter.js';

describe('createJsonTemplate', () => {
  it('produces exactly what JSON.stringify gives for the filled object', () => {
    const constant = { id: 'x"1', model: 'm\n', choices: undefined, usage: null };
    const fill = createJsonTemplate(constant, ['choices']);
    const choices = [{ delta: { content: 'quote " and \\ and \u2028' } }];
    expect(fill(choices)).toBe(JSON.stringify({ ...constant, choices }));
    expect(JSON.parse(fill(choices))).toEqual({ id: 'x"1', model: 'm\n', choices, usage: null });
  });

  it('fills several slots in order', () => {
    const fill = createJsonTemplate({ a: undefined, b: 2, c: undefined }, ['a', 'c']);
    expect(fill('first', { nested: true })).toBe('{"a":"first","b":2,"c":{"nested":true}}');
  });
});

describe('groupPieces', () => {
  it('joins pieces into chunks of chunkTokens tokens', () => {
    expect(groupPieces(['a', ' b', ' c'], { chunkTokens: 2 })).toEqual([
      { text: 'a b', tokens: 2 },
      { text: ' c', tokens: 1 },
    ]);
  });
});
