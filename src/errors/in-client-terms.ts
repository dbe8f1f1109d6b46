import type { RequestedParameter } from '../core/text-call.js';
import { GatewayError } from './gateway-error.js';

/**
 * A provider adapter refuses a parameter by its canonical name (`response_format`); the client
 * sent it under its style's name (`text.format` on /responses). Says it in the client's terms.
 */
export function inClientTerms(error: GatewayError, parameters: readonly RequestedParameter[]): GatewayError {
  const requested = parameters.find((parameter) => parameter.name === error.param && parameter.field !== parameter.name);
  if (!requested) return error;
  const message = error.message.replaceAll(`'${requested.name}'`, `'${requested.field}'`);
  return new GatewayError(error.code, message, { param: requested.field, metadata: error.metadata, cause: error });
}
