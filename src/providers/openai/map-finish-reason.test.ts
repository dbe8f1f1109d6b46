import { describe, expect, it } from 'vitest';
import { mapFinishReason } from './map-finish-reason.js';

describe('mapFinishReason', () => {
  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool_calls', 'tool_calls'],
    ['function_call', 'tool_calls'],
    ['content_filter', 'content_filter'],
  ])('maps %s to %s', (upstream, canonical) => {
    expect(mapFinishReason(upstream)).toBe(canonical);
  });

  it.each([['eos'], ['abort'], ['error'], [null], [undefined], [3]])('maps %s to other', (upstream) => {
    expect(mapFinishReason(upstream)).toBe('other');
  });
});
