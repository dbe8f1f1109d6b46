import { UpstreamError } from './upstream-error.js';
import { isDatabaseUnavailable, isInvalidTextError } from '../store/database-errors.js';
import { GatewayError } from './gateway-error.js';
import { toClientError } from './to-client-error.js';
import { toValidationError, type ValidationIssue } from './to-validation-error.js';

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message?: string;
  validation?: ValidationIssue[];
  validationContext?: string;
}

/**
 * Maps anything thrown while handling a request onto a client-facing `GatewayError`.
 * Unknown errors become a 500 whose message says nothing about internals.
 */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof UpstreamError) return toClientError(error);
  const fastifyError = error as FastifyLikeError;
  if (fastifyError?.validation) return toValidationError(fastifyError.validation[0], { part: fastifyError.validationContext });
  switch (fastifyError?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError('payload_too_large', 'Request body is larger than the limit', { cause: error });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GatewayError('unsupported_media_type', 'Unsupported Content-Type: send application/json', { cause: error });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new GatewayError('invalid_request', 'Request body is empty: send a JSON object', { cause: error });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new GatewayError('invalid_request', 'Request body is not valid JSON', { cause: error });
    default:
      break;
  }
  if (error instanceof SyntaxError || (fastifyError?.statusCode === 400 && /JSON/i.test(fastifyError.message ?? ''))) {
    return new GatewayError('invalid_request', 'Request body is not valid JSON', { cause: error });
  }
  if (isMultipartError(fastifyError)) {
    return new GatewayError('invalid_request', 'The multipart/form-data body could not be read: send a boundary in Content-Type and well-formed parts', { cause: error });
  }
  if (fastifyError?.statusCode === 413) return new GatewayError('payload_too_large', 'Request body is larger than the limit', { cause: error });
  if (fastifyError?.statusCode === 415) return new GatewayError('unsupported_media_type', 'Unsupported Content-Type', { cause: error });
  if (isDatabaseUnavailable(error)) return new GatewayError('service_unavailable', 'The database is not answering; retry shortly', { cause: error });
  if (isInvalidTextError(error)) return new GatewayError('invalid_request', 'The request holds text that cannot be stored (a NUL character or an invalid byte sequence)', { cause: error });
  return new GatewayError('internal_error', 'Internal error', { cause: error });
}

// busboy's parse errors carry no code; its messages are its stable interface.
const multipartMessage = /^(Multipart: |Unexpected end of (form|multipart data)|Malformed part header|Unsupported content type)/;

function isMultipartError(error: FastifyLikeError | undefined): boolean {
  if (!error || typeof error.message !== 'string') return false;
  if (multipartMessage.test(error.message)) return true;
  // @fastify/multipart's own refusals (limits, wrong content type) carry a 4xx status.
  return typeof error.code === 'string' && error.code.startsWith('FST_') && error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 && error.statusCode !== 413;
}
