/**
 * Readers for upstream JSON that take only the fields we use, and read a field of the wrong type
 * as missing: providers differ in the details (OpenAI-compatible servers above all), and a stray `null` or extra field
 * must not fail a response (style rule 4: parse upstream answers leniently).
 */
export type JsonRecord = Record<string, unknown>;

export function asRecord(value: unknown): JsonRecord | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonRecord) : undefined;
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** An array, or an empty one when the field is missing or not an array. */
export function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * The objects of an upstream array, read as `T` (whose fields are all optional): a missing or
 * mistyped array reads as empty, and entries that are not objects (a stray `null`) are skipped.
 */
export function asObjects<T extends object>(value: unknown): T[] {
  return Array.isArray(value) ? (value.filter((entry) => typeof entry === 'object' && entry !== null && !Array.isArray(entry)) as T[]) : [];
}
