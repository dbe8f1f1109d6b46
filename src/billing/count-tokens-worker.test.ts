import { describe, expect, it } from 'vitest';
import { countTextTokens, prepareTokenizer } from './count-tokens.js';

// A file of its own: the encoder must not have been built in this module graph before.
describe('where the token encoder lives', () => {
  it('is built in a worker thread: the tens of MB of its maps stay out of the main heap, which every full collection marks', async () => {
    const before = process.memoryUsage().heapUsed;
    await prepareTokenizer();
    const grownMb = (process.memoryUsage().heapUsed - before) / 1e6;
    // Built in this thread, js-tiktoken's added 60–70 MB here; from a worker only its messages are ours.
    expect(grownMb).toBeLessThan(20);
    expect(await countTextTokens('hello world')).toBe(2);
    expect(await Promise.all(['one two three', 'こんにちは世界', ''].map(countTextTokens))).toEqual([3, 2, 0]);
  });
});
