import { describe, expect, it } from 'vitest';
import { createEstimatedUsage } from './create-estimated-usage.js';

describe('createEstimatedUsage', () => {
  it('marks zero usage as estimated, in a fresh object each time', () => {
    const usage = createEstimatedUsage();
    expect(usage).toEqual({ promptTokens: 0, completionTokens: 0, estimated: true });
    usage.promptTokens = 10;
    expect(createEstimatedUsage().promptTokens).toBe(0);
  });
});
