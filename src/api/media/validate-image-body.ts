import { Ajv, type ValidateFunction } from 'ajv';
import type { ModelConfig } from '../../config/types.js';
import type { ImageOperation } from '../../core/image-request.js';
import { toValidationError } from '../../errors/to-validation-error.js';
import { buildImageRequestSchema } from './image-request-schema.js';

const ajv = new Ajv({ allErrors: false, coerceTypes: false, removeAdditional: false, useDefaults: false, strict: false });
/** Per model object (not id): two catalogs in one process (tests) may give one id different lists. */
const compiled = new WeakMap<ModelConfig, Partial<Record<ImageOperation, ValidateFunction>>>();

/** Validates a body against the model's published schema; throws 400 naming the first bad field. */
export function validateImageBody(model: ModelConfig, operation: ImageOperation, body: Record<string, unknown>): void {
  const forModel = compiled.get(model) ?? {};
  compiled.set(model, forModel);
  const validate = (forModel[operation] ??= ajv.compile(buildImageRequestSchema(model, operation)));
  if (!validate(body)) throw toValidationError(validate.errors?.[0], { modelId: model.id });
}
