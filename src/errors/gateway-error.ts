import { errorCodes, type ErrorCode } from './error-codes.js';

export interface GatewayErrorOptions {
  /** Extra `error.metadata` fields (e.g. `limit_type`). `request_id` is added when rendered. */
  metadata?: Record<string, unknown>;
  /** Response headers to send with the error (e.g. `Retry-After`, `Allow`). */
  headers?: Record<string, string>;
  /** The field or parameter at fault, for validation errors. */
  param?: string;
  cause?: unknown;
}

/**
 * An error the client should see. Handlers and services throw it; the one error handler renders
 * the envelope `{error: {code, message, status, metadata: {request_id, …}}}` plus the style's
 * extra `type` fields.
 */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly metadata: Record<string, unknown>;
  readonly headers: Record<string, string>;
  readonly param?: string;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.status = errorCodes[code];
    this.metadata = options.metadata ?? {};
    this.headers = options.headers ?? {};
    this.param = options.param;
  }
}

export function invalidRequest(message: string, param?: string): GatewayError {
  return new GatewayError('invalid_request', message, { param });
}

/** The standard refusal for a parameter the style does not define or the route cannot honour. */
export function unsupportedParameter(name: string, reason = 'is not supported'): GatewayError {
  return new GatewayError('invalid_request', `Unsupported parameter: '${name}' ${reason}.`, { param: name });
}

export function notFound(what: string): GatewayError {
  return new GatewayError('not_found', `${what} not found`);
}
