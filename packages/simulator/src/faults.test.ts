import { describe, expect, it } from 'vitest';
import { createFaultStore, FaultSyntaxError, parseDirectives, pickCutFault, stripDirectives } from './faults.js';

describe('parseDirectives', () => {
  it('reads keys, values and flags, merging several directives', () => {
    expect(parseDirectives('hi [[sim:status=429, retry_after=1.5]] and [[sim:no_usage,latency=20]]')).toEqual({
      status: 429,
      retry_after: 1.5,
      no_usage: true,
      latency: 20,
    });
    expect(parseDirectives('no directive here')).toBeUndefined();
  });

  it('rejects unknown keys and bad values instead of ignoring them', () => {
    expect(() => parseDirectives('[[sim:stauts=500]]')).toThrow(FaultSyntaxError);
    expect(() => parseDirectives('[[sim:disconnect_after=two]]')).toThrow(/non-negative integer/);
    expect(() => parseDirectives('[[sim:status=200]]')).toThrow(/400-599/);
  });

  it('strips directives from the echoed text', () => {
    expect(stripDirectives('a [[sim:status=500]] b').split(/\s+/)).toEqual(['a', 'b']);
  });
});

describe('createFaultStore', () => {
  it('applies the first matching rule and retires it after `times` uses', () => {
    const store = createFaultStore();
    store.add({ match: { protocol: 'openai', model: 'gpt-a' }, fault: { status: 500 }, times: 2 });
    store.add({ fault: { latency: 5 } });
    expect(store.take('anthropic', 'gpt-a')).toEqual({ latency: 5 });
    expect(store.take('openai', 'gpt-a')).toEqual({ status: 500 });
    expect(store.take('openai', 'gpt-a')).toEqual({ status: 500 });
    expect(store.take('openai', 'gpt-a')).toEqual({ latency: 5 });
    expect(store.list()).toEqual([{ id: 'fault_2', rule: { fault: { latency: 5 } }, remaining: null }]);
    store.clear();
    expect(store.take('openai', 'gpt-a')).toBeUndefined();
  });

  it('validates rules', () => {
    const store = createFaultStore();
    expect(() => store.add({ fault: { status: 500 }, times: 0 })).toThrow(/times/);
    expect(() => store.add({ match: { protocol: 'mistral' as 'openai' }, fault: {} })).toThrow(/protocol/);
  });
});

describe('pickCutFault', () => {
  it('picks the cut that happens first', () => {
    expect(pickCutFault({ stall_after: 4, disconnect_after: 2 })).toEqual({ kind: 'disconnect', after: 2 });
    expect(pickCutFault({ malformed_after: 0, error_after: 3 })).toEqual({ kind: 'malformed', after: 0 });
    expect(pickCutFault({ status: 500 })).toBeUndefined();
  });
});
