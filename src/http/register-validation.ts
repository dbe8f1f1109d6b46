import { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';

/**
 * Two validators: bodies are checked strictly (no coercion, nothing removed: an unknown field is
 * an error naming it), while query strings and path parameters coerce text to numbers and booleans.
 */
export function registerValidation(app: FastifyInstance): void {
  const strict = new Ajv({ allErrors: false, coerceTypes: false, removeAdditional: false, useDefaults: false, strict: false });
  const lenient = new Ajv({ allErrors: false, coerceTypes: 'array', removeAdditional: false, useDefaults: true, strict: false });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : lenient).compile(schema));
}
