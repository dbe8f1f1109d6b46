import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { mapPacked } from './map-packed.js';

describe('mapPacked', () => {
  it('is map: each value through the function with its index, in order, the list unchanged', () => {
    const list = ['a', null, 'c'];
    expect(mapPacked(list, (value, index) => `${index}:${value}`)).toEqual(list.map((value, index) => `${index}:${value}`));
    expect(mapPacked([], () => 1)).toEqual([]);
    expect(list).toEqual(['a', null, 'c']);
  });

  it('answers a packed array from optimized code too, where map answers a holey one on Node 20', async () => {
    const module = fileURLToPath(new URL('./map-packed.ts', import.meta.url));
    // Each producer is compiled by TurboFan, then asked again: the holey result is what made its readers deoptimize.
    const script = `
      const { mapPacked } = await import(${JSON.stringify(module)});
      const list = [{ id: 'a' }, { id: null }, { id: 'c' }];
      const packed = (values) => mapPacked(values, (value) => value.id);
      const mapped = (values) => values.map((value) => value.id);
      const holey = {};
      for (const [name, produce] of Object.entries({ packed, mapped })) {
        %PrepareFunctionForOptimization(produce);
        const before = %HasHoleyElements(produce(list));
        produce(list);
        %OptimizeFunctionOnNextCall(produce);
        const result = produce(list);
        // Bit 64 of the status: the function runs TurboFan code (V8 11.3's OptimizationStatus).
        holey[name] = { before, optimized: %HasHoleyElements(result), turbofan: (%GetOptimizationStatus(produce) & 64) !== 0 };
      }
      console.log(JSON.stringify(holey));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script]);
    expect(JSON.parse(stdout)).toEqual({
      packed: { before: false, optimized: false, turbofan: true },
      // The engine's behaviour this works around: if a later Node stops doing this, the helper is no longer needed.
      mapped: { before: false, optimized: true, turbofan: true },
    });
  });
});
