import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';

/**
 * Shape checks for the Responses request body. Every failure is a 400 naming the JSON path
 * (`input[3].call_id`), so a client can find its mistake without reading our source.
 */

export type JsonObject = Record<string, unknown>;

/** The OpenAI SDK types allow `null` for most optional fields; null means "not set". */
export function isAbsent(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function expectObject(value: unknown, path: string): JsonObject {
  if (!isJsonObject(value)) throw invalidRequest(`'${path}' must be an object`, path);
  return value;
}

export function expectArray(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw invalidRequest(`'${path}' must be an array`, path);
  return value;
}

export function expectString(value: unknown, path: string): string {
  if (isAbsent(value)) throw invalidRequest(`'${path}' is required`, path);
  if (typeof value !== 'string') throw invalidRequest(`'${path}' must be a string`, path);
  return value;
}

export function expectBoolean(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') throw invalidRequest(`'${path}' must be a boolean`, path);
  return value;
}

export function expectNumberInRange(value: unknown, path: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw invalidRequest(`'${path}' must be a number between ${min} and ${max}`, path);
  }
  return value;
}

export function expectPositiveInteger(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalidRequest(`'${path}' must be a positive integer`, path);
  }
  return value;
}

export function expectOneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalidRequest(`'${path}' must be one of ${allowed.join(', ')}`, path);
  }
  return value as T;
}

/** Unknown keys are refused by name rather than ignored: nothing the client sent is dropped. */
export function rejectUnknownKeys(object: JsonObject, allowed: ReadonlySet<string>, path: string): void {
  for (const key of Object.keys(object)) {
    if (!allowed.has(key)) throw unsupportedParameter(path === '' ? key : `${path}.${key}`);
  }
}
