import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import { cleanFunctionSchema } from './clean-function-schema.js';

describe('cleanFunctionSchema', () => {
  it('strips keys Gemini rejects at every depth, keeping the ones it knows', () => {
    const cleaned = cleanFunctionSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      properties: {
        query: { type: 'string', minLength: 1, description: 'What to look for', format: 'uri', $comment: 'x' },
        filters: {
          type: 'object',
          additionalProperties: { type: 'string' },
          properties: { since: { type: 'string', format: 'date-time' }, limit: { type: 'integer', exclusiveMinimum: 0, maximum: 50, format: 'int32' } },
        },
        tags: { type: 'array', uniqueItems: true, items: { type: 'string', additionalProperties: false }, maxItems: 5 },
      },
      required: ['query'],
    }, 'search');
    expect(cleaned).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: 'What to look for' },
        filters: {
          type: 'object',
          properties: { since: { type: 'string', format: 'date-time' }, limit: { type: 'integer', maximum: 50, format: 'int32' } },
        },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 5 },
      },
      required: ['query'],
    });
  });

  it('turns type lists into nullable or anyOf, and pydantic Optional into nullable', () => {
    const cleaned = cleanFunctionSchema({
      type: 'object',
      properties: {
        note: { type: ['string', 'null'] },
        id: { type: ['string', 'integer'] },
        age: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }], description: 'Age in years' },
        shape: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      },
    }, 'f');
    expect(cleaned?.properties).toEqual({
      note: { type: 'string', nullable: true },
      id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      age: { description: 'Age in years', nullable: true, type: 'integer', minimum: 0 },
      shape: { anyOf: [{ type: 'string' }, { type: 'number' }] },
    });
  });

  it('keeps string enums and const, and moves other enum values into the description', () => {
    const cleaned = cleanFunctionSchema({
      type: 'object',
      properties: {
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        kind: { const: 'point' },
        level: { type: 'integer', enum: [1, 2, 3], description: 'Verbosity.' },
      },
    }, 'f');
    expect(cleaned?.properties).toEqual({
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      kind: { enum: ['point'] },
      level: { type: 'integer', description: 'Verbosity. Allowed values: 1, 2, 3.' },
    });
  });

  it('inlines local $ref and $defs, with the sibling description kept, and merges allOf', () => {
    const cleaned = cleanFunctionSchema({
      type: 'object',
      $defs: { Address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } },
      definitions: { Id: { type: 'string' } },
      properties: {
        home: { $ref: '#/$defs/Address', description: 'Where they live' },
        id: { $ref: '#/definitions/Id' },
        work: { allOf: [{ $ref: '#/$defs/Address' }, { properties: { floor: { type: 'integer' } } }] },
      },
    }, 'f');
    expect(cleaned?.properties).toEqual({
      home: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], description: 'Where they live' },
      id: { type: 'string' },
      work: { type: 'object', properties: { city: { type: 'string' }, floor: { type: 'integer' } }, required: ['city'] },
    });
    expect(cleaned).not.toHaveProperty('$defs');
    expect(cleaned).not.toHaveProperty('definitions');
  });

  it('refuses recursive and unresolvable references with an invalid_request naming the tool', () => {
    const recursive = {
      type: 'object',
      $defs: { Node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/Node' } } } } },
      properties: { root: { $ref: '#/$defs/Node' } },
    };
    expect(() => cleanFunctionSchema(recursive, 'tree')).toThrowError(GatewayError);
    expect(() => cleanFunctionSchema(recursive, 'tree')).toThrowError(/Tool 'tree'.*recursive/);
    expect(() => cleanFunctionSchema({ type: 'object', properties: { a: { $ref: 'https://example.com/a.json' } } }, 'f')).toThrowError(/cannot be resolved/);
  });

  it('returns undefined for a function without parameters, which Gemini wants omitted', () => {
    expect(cleanFunctionSchema({ type: 'object', properties: {}, additionalProperties: false }, 'f')).toBeUndefined();
    expect(cleanFunctionSchema({ type: 'object' }, 'f')).toBeUndefined();
  });
});
