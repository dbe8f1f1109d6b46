import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { withFields } from './with-fields.js';

describe('withFields', () => {
  it('is the spread: the base copied, the extra fields over it, neither object changed', () => {
    const base = { id: 'a', usage: { tokens: 1 }, omitted: undefined as string[] | undefined };
    const extra = { usage: { tokens: 2 }, cost: 5n };
    const merged = withFields(base, extra);
    expect(merged).toEqual({ ...base, ...extra });
    expect(Object.keys(merged)).toEqual(Object.keys({ ...base, ...extra }));
    expect(merged).not.toBe(base);
    expect(base.usage).toEqual({ tokens: 1 });
    expect('cost' in base).toBe(false);
  });

  it('keeps a parsed `__proto__` key as an own field, as a spread does, instead of setting the prototype', () => {
    const parsed = JSON.parse('{"prompt_tokens": 3, "__proto__": {"polluted": true}}') as Record<string, unknown>;
    const merged = withFields(parsed, { cost: 0.5 }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(merged.polluted).toBeUndefined();
    expect(Object.hasOwn(merged, '__proto__')).toBe(true);
    expect(JSON.stringify(merged)).toBe(JSON.stringify({ ...parsed, cost: 0.5 }));
  });

  it('gives its copies one map once optimized (a spread and a new field gives each a map of its own on Node 20)', async () => {
    const module = fileURLToPath(new URL('./with-fields.ts', import.meta.url));
    const script = `
      const { withFields } = await import(${JSON.stringify(module)});
      const make = (i) => withFields({ id: 'req_' + i, stream: false }, { omitted: [] });
      for (let i = 0; i < 100000; i += 1) make(i);
      console.log(JSON.stringify({ sameMap: %HaveSameMap(make(1), make(2)), fast: %HasFastProperties(make(3)) }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script]);
    expect(JSON.parse(stdout)).toEqual({ sameMap: true, fast: true });
  });
});
