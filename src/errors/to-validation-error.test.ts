import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { toValidationError } from './to-validation-error.js';

const ajv = new Ajv({ allErrors: false, coerceTypes: false, strict: false });
const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['model'],
  properties: {
    model: { type: 'string' },
    size: { enum: ['256x256', '1024x1024'] },
    n: { type: 'integer', minimum: 1, maximum: 4 },
    images: { type: 'array', items: { type: 'object', additionalProperties: false, properties: { image_url: { type: 'string' } } } },
  },
};
const validate = ajv.compile(schema);
const refusalOf = (body: unknown, options?: { part?: string; modelId?: string }) => {
  expect(validate(body)).toBe(false);
  return toValidationError(validate.errors?.[0], options);
};

/** One translation for fastify's route schemas and the image routes' per-model schemas. */
describe('toValidationError', () => {
  it('names the field the way the decoders do, array items in brackets, for either caller', () => {
    for (const options of [{}, { modelId: 'acme/img' }]) {
      expect(refusalOf({ model: 'm', images: [{ image_url: 'x', mask: 'y' }] }, options).param).toBe('images[0].mask');
    }
    expect(refusalOf({ model: 'm', images: [{ image_url: 'x', mask: 'y' }] }).message).toBe("Unsupported parameter: 'images[0].mask' is not supported.");
    expect(refusalOf({ model: 'm', images: [{ image_url: 'x', mask: 'y' }] }, { modelId: 'acme/img' }).message).toBe("Unsupported parameter: 'images[0].mask' is not supported by model 'acme/img'.");
  });

  it('lists the allowed values and states the bound, naming the model when a model schema refused', () => {
    expect(refusalOf({ model: 'm', size: '2x2' }).message).toBe("'size' must be one of 256x256, 1024x1024");
    expect(refusalOf({ model: 'm', size: '2x2' }, { modelId: 'acme/img' }).message).toBe("'size' must be one of 256x256, 1024x1024 for model 'acme/img'");
    expect(refusalOf({ model: 'm', n: 9 }).message).toBe("'n' must be <= 4");
    expect(refusalOf({ model: 'm', n: 9 }, { modelId: 'acme/img' }).message).toBe("'n' must be <= 4 for model 'acme/img'");
  });

  it('says what is missing, and what is wrong with the body or another part as a whole', () => {
    expect(refusalOf({})).toMatchObject({ status: 400, code: 'invalid_request', message: "'model' is required", param: 'model' });
    expect(refusalOf([1]).message).toBe('Request body must be a JSON object');
    expect(refusalOf([1], { part: 'querystring' }).message).toBe('The querystring must be object');
    expect(toValidationError(undefined).message).toBe('Request body is invalid');
  });
});
