import { describe, expect, it } from 'vitest';
import { buildToolArguments } from './build-tool-arguments.js';

describe('buildToolArguments', () => {
  it('fills required properties only, by type', () => {
    const schema = {
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: { type: 'integer' },
        ratio: { type: 'number' },
        metric: { type: 'boolean' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        note: { type: 'string' },
      },
      required: ['city', 'days', 'ratio', 'metric', 'unit'],
    };
    expect(buildToolArguments(schema)).toEqual({ city: 'sample', days: 1, ratio: 1, metric: true, unit: 'celsius' });
  });

  it('recurses into required nested objects and arrays', () => {
    const schema = {
      type: 'object',
      properties: {
        address: { type: 'object', properties: { street: { type: 'string' }, zip: { type: 'string' } }, required: ['street'] },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['address', 'tags'],
    };
    expect(buildToolArguments(schema)).toEqual({ address: { street: 'sample' }, tags: ['sample'] });
  });

  it('understands Gemini upper-case types, nullable type lists, const and anyOf', () => {
    const schema = {
      type: 'OBJECT',
      properties: {
        count: { type: 'INTEGER' },
        label: { type: ['null', 'string'] },
        kind: { const: 'fixed' },
        either: { anyOf: [{ type: 'null' }, { type: 'boolean' }] },
      },
      required: ['count', 'label', 'kind', 'either'],
    };
    expect(buildToolArguments(schema)).toEqual({ count: 1, label: 'sample', kind: 'fixed', either: true });
  });

  it('gives an empty object for a missing or parameterless schema', () => {
    expect(buildToolArguments(undefined)).toEqual({});
    expect(buildToolArguments({ type: 'object', properties: {} })).toEqual({});
  });
});
