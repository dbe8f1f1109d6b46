import { describe, expect, it } from 'vitest';
import type { TextRequest } from '../core/text-request.js';
import { tagResultSignatures, untagRequestSignatures } from './tag-signatures.js';

const turn = (signature: string | undefined): TextRequest => ({
  stream: false,
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'think' }] },
    { role: 'assistant', content: [{ type: 'reasoning', text: 'hmm', ...(signature === undefined ? {} : { signature }) }, { type: 'text', text: 'done' }] },
  ],
});
const reasoningOf = (request: TextRequest) => (request.messages[1].content as Array<{ type: string; signature?: string }>)[0];

describe('reasoning signature tags', () => {
  it('tags signatures leaving the gateway with the protocol that issued them', () => {
    const tagged = tagResultSignatures(
      { content: [{ type: 'reasoning', text: 'x', signature: 'abc' }, { type: 'text', text: 'y' }], finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1 } },
      'anthropic',
    );
    expect(tagged.content[0]).toEqual({ type: 'reasoning', text: 'x', signature: 'anthropic:abc' });
    expect(tagged.content[1]).toEqual({ type: 'text', text: 'y' });
  });

  it('gives a signature back only to its own protocol, and drops it for another', () => {
    expect(reasoningOf(untagRequestSignatures(turn('anthropic:abc'), 'anthropic')).signature).toBe('abc');
    const elsewhere = reasoningOf(untagRequestSignatures(turn('anthropic:abc'), 'gemini'));
    expect(elsewhere).toEqual({ type: 'reasoning', text: 'hmm' });
  });

  it('passes untagged signatures and unsigned reasoning through unchanged', () => {
    const untagged = turn('RXhhbXBsZQ==');
    expect(untagRequestSignatures(untagged, 'gemini')).toEqual(untagged);
    const unsigned = turn(undefined);
    expect(untagRequestSignatures(unsigned, 'anthropic')).toBe(unsigned);
    expect(reasoningOf(untagRequestSignatures(turn('notaprotocol:xyz'), 'anthropic')).signature).toBe('notaprotocol:xyz');
  });
});
