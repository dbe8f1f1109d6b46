import { GatewayError, invalidRequest, unsupportedParameter } from './gateway-error.js';

/** The fields of an AJV error object read here (fastify's `error.validation` entries are AJV's). */
export interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/**
 * The one translation of a JSON-schema (AJV) failure into a 400 naming the field, for the route
 * schemas fastify checks and the per-model schemas the image routes check themselves. `part` is
 * fastify's validation context (body, querystring, params); `modelId` names the model whose
 * published schema refused the value.
 */
export function toValidationError(issue: ValidationIssue | undefined, options: { part?: string; modelId?: string } = {}): GatewayError {
  const part = options.part ?? 'body';
  const forModel = options.modelId !== undefined ? ` for model '${options.modelId}'` : '';
  const path = fieldPath(issue?.instancePath ?? '');
  const join = (name: string) => (path ? `${path}.${name}` : name);
  const params = issue?.params ?? {};
  switch (issue?.keyword) {
    case 'additionalProperties': {
      const field = join(String(params.additionalProperty ?? ''));
      return options.modelId !== undefined ? unsupportedParameter(field, `is not supported by model '${options.modelId}'`) : unsupportedParameter(field);
    }
    case 'required': {
      const field = join(String(params.missingProperty ?? ''));
      return invalidRequest(`'${field}' is required`, field);
    }
    case 'type':
      if (!path && part === 'body') return invalidRequest('Request body must be a JSON object');
      break;
    case 'enum':
      if (path && Array.isArray(params.allowedValues)) return invalidRequest(`'${path}' must be one of ${params.allowedValues.join(', ')}${forModel}`, path);
      break;
    case 'maximum':
    case 'minimum':
      if (path) return invalidRequest(`'${path}' must be ${String(params.comparison)} ${String(params.limit)}${forModel}`, path);
      break;
    default:
      break;
  }
  const subject = path ? `'${path}'` : part === 'body' ? 'Request body' : `The ${part}`;
  return invalidRequest(`${subject} ${issue?.message ?? 'is invalid'}`, path || undefined);
}

/** `/input/0/image_url` → `input[0].image_url`, the way the decoders name fields. */
function fieldPath(instancePath: string): string {
  return instancePath
    .slice(1)
    .split('/')
    .filter(Boolean)
    .map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`))
    .join('');
}
