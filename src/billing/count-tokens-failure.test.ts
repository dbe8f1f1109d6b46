import { afterEach, describe, expect, it } from 'vitest';
import { closeTokenizer, countTextTokens, onTokenCountFailure, prepareTokenizer } from './count-tokens.js';

// A file of its own: it stops the worker of this module graph.
describe('a token count whose worker dies', () => {
  afterEach(() => onTokenCountFailure(undefined));

  it('answers the byte approximation (a stream whose usage is estimated still settles), tells the listener, and the next count starts a fresh worker', async () => {
    await prepareTokenizer();
    const failures: Error[] = [];
    onTokenCountFailure((error) => failures.push(error));
    // Long enough that the worker is still counting when it is stopped (~0.1 s of BPE work).
    const text = 'The gateway counts what the provider did not report. '.repeat(40_000);
    const counting = countTextTokens(text);
    await closeTokenizer();
    expect(await counting).toBe(Math.ceil(Buffer.byteLength(text) / 4));
    expect(failures).toHaveLength(1);
    expect(failures[0].message).toMatch(/worker exited/);
    expect(await countTextTokens('hello world')).toBe(2);
    expect(failures).toHaveLength(1);
  });
});
