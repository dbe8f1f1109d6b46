import { describe, expect, it } from 'vitest';
import { axisUsdFormat } from '../../web/src/format.js';

describe('axisUsdFormat', () => {
  it('formats every tick of an axis with the same decimals, the fewest that show each exactly', () => {
    // Chart.js's own steps, float noise included (0.0001 * 3 = 0.00030000000000000003).
    const small = [0, 0.0001, 0.0002, 0.0001 * 3, 0.0004];
    expect(small.map(axisUsdFormat(small))).toEqual(['$0.0000', '$0.0001', '$0.0002', '$0.0003', '$0.0004']);
    const mixed = [0, 0.0004, 0.0008, 0.0012, 0.0016, 0.002];
    expect(mixed.map(axisUsdFormat(mixed))).toEqual(['$0.0000', '$0.0004', '$0.0008', '$0.0012', '$0.0016', '$0.0020']);
  });

  it('keeps cents for whole amounts, thousands separated, and stops at nano-dollars', () => {
    const large = [0, 500, 1000, 1500];
    expect(large.map(axisUsdFormat(large))).toEqual(['$0.00', '$500.00', '$1,000.00', '$1,500.00']);
    const tiny = [0, 1e-10, 2e-10];
    expect(axisUsdFormat(tiny)(2e-10)).toBe('$0.000000000');
  });
});
