import { invalidRequest } from '../../errors/gateway-error.js';
import { isAbsent } from '../shared/read-json-fields.js';

/**
 * Shape checks of the Responses request body that the shared readers (`read-json-fields.ts`) do
 * not cover. Every failure is a 400 naming the JSON path (`input[3].call_id`), so a client can
 * find its mistake without reading our source.
 */

/** A required string: absent (or null, which the OpenAI SDK types allow) is refused as missing. */
export function expectString(value: unknown, path: string): string {
  if (isAbsent(value)) throw invalidRequest(`'${path}' is required`, path);
  if (typeof value !== 'string') throw invalidRequest(`'${path}' must be a string`, path);
  return value;
}

export function expectPositiveInteger(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalidRequest(`'${path}' must be a positive integer`, path);
  }
  return value;
}
