import { describe, expect, it } from 'vitest';
import { refusesTemperatureWithTopP } from './sampling-families.js';

describe('refusesTemperatureWithTopP', () => {
  it.each([
    'claude-opus-4-1-20250805',
    'claude-sonnet-4-5-20250929',
    'claude-haiku-4-5',
    'claude-opus-4-6',
    'claude-sonnet-4-6',
    'claude-opus-4-7',
    'claude-sonnet-5',
    'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  ])('%s takes one of the two', (model) => expect(refusesTemperatureWithTopP(model)).toBe(true));

  it.each(['claude-sonnet-4-20250514', 'claude-opus-4-20250514', 'claude-3-7-sonnet-20250219', 'claude-3-5-haiku-latest', 'anthropic.claude-3-haiku-20240307-v1:0', 'MiniMax-M2', 'claude-sim'])(
    '%s takes both',
    (model) => expect(refusesTemperatureWithTopP(model)).toBe(false),
  );
});
