import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';

/**
 * Typed readers for the fields of a decoded JSON body. Each one names the field's path in its
 * error so that a client sees exactly what to fix ("'messages[2].content' must be …"). Shared by
 * every inbound text style (Messages and Responses import it too); it belongs in `api/shared/`
 * once that folder is open to this work.
 */

export type JsonObject = Record<string, unknown>;

/** OpenAI and Anthropic both accept `null` for an optional field and read it as "not set". */
export function isAbsent(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readObject(value: unknown, field: string): JsonObject {
  if (!isJsonObject(value)) throw invalidRequest(`'${field}' must be an object`, field);
  return value;
}

export function readArray(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw invalidRequest(`'${field}' must be an array`, field);
  return value;
}

/** Refuses any key outside `allowed`, naming its full path: nothing is silently dropped. */
export function rejectUnknownKeys(object: JsonObject, allowed: ReadonlySet<string>, path?: string): void {
  for (const key of Object.keys(object)) {
    if (!allowed.has(key)) throw unsupportedParameter(path ? `${path}.${key}` : key);
  }
}

export function readString(value: unknown, field: string, options: { nonEmpty?: boolean } = {}): string {
  if (typeof value !== 'string') throw invalidRequest(`'${field}' must be a string`, field);
  if (options.nonEmpty && value === '') throw invalidRequest(`'${field}' must not be empty`, field);
  return value;
}

export function readBoolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw invalidRequest(`'${field}' must be a boolean`, field);
  return value;
}

export function readNumber(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw invalidRequest(`'${field}' must be a number between ${min} and ${max}`, field);
  }
  return value;
}

export function readInteger(value: unknown, field: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    const range = max !== Number.MAX_SAFE_INTEGER ? ` between ${min} and ${max}` : min !== Number.MIN_SAFE_INTEGER ? ` at least ${min}` : '';
    throw invalidRequest(`'${field}' must be an integer${range}`, field);
  }
  return value;
}

export function readStringList(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string' || entry === '')) {
    throw invalidRequest(`'${field}' must be an array of non-empty strings`, field);
  }
  return value as string[];
}

/** Reads a string that must be one of `choices`. */
export function readEnum<T extends string>(value: unknown, field: string, choices: readonly T[]): T {
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    throw invalidRequest(`'${field}' must be one of ${choices.join(', ')}`, field);
  }
  return value as T;
}
