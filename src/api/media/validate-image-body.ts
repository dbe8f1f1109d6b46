import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { ModelConfig } from '../../config/types.js';
import type { ImageOperation } from '../../core/image-request.js';
import { invalidRequest, unsupportedParameter, type GatewayError } from '../../errors/gateway-error.js';
import { buildImageRequestSchema } from './image-request-schema.js';

const ajv = new Ajv({ allErrors: false, coerceTypes: false, removeAdditional: false, useDefaults: false, strict: false });
/** Per model object (not id): two catalogs in one process (tests) may give one id different lists. */
const compiled = new WeakMap<ModelConfig, Partial<Record<ImageOperation, ValidateFunction>>>();

/** Validates a body against the model's published schema; throws 400 naming the first bad field. */
export function validateImageBody(model: ModelConfig, operation: ImageOperation, body: Record<string, unknown>): void {
  const forModel = compiled.get(model) ?? {};
  compiled.set(model, forModel);
  const validate = (forModel[operation] ??= ajv.compile(buildImageRequestSchema(model, operation)));
  if (!validate(body)) throw toGatewayError(validate.errors?.[0], model.id);
}

function toGatewayError(error: ErrorObject | undefined, modelId: string): GatewayError {
  if (!error) return invalidRequest('Request body is invalid');
  const path = error.instancePath
    .slice(1)
    .split('/')
    .filter(Boolean)
    .map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`))
    .join('');
  const join = (name: string) => (path ? `${path}.${name}` : name);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return unsupportedParameter(join(String(params.additionalProperty)), `is not supported by model '${modelId}'`);
    case 'required':
      return invalidRequest(`'${join(String(params.missingProperty))}' is required`, join(String(params.missingProperty)));
    case 'enum':
      return invalidRequest(`'${path}' must be one of ${(params.allowedValues as unknown[]).join(', ')} for model '${modelId}'`, path);
    case 'maximum':
    case 'minimum':
      return invalidRequest(`'${path}' must be ${String(params.comparison)} ${String(params.limit)} for model '${modelId}'`, path);
    default:
      return invalidRequest(`'${path || 'body'}' ${error.message ?? 'is invalid'}`, path || undefined);
  }
}
