type JsonObject = Record<string, unknown>;

const isJsonObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Values that are the client's own data (function arguments and results, schemas): their keys are
 * never renamed.
 */
const opaque = new Set(['args', 'response', 'parameters', 'parametersJsonSchema', 'responseSchema', 'responseJsonSchema', 'labels', 'partMetadata']);

/**
 * Google's JSON mapping of its protos accepts both a field's lowerCamelCase name and its
 * original snake_case one (https://protobuf.dev/programming-guides/json/), and the Gemini API's
 * own curl examples send `system_instruction` and `generation_config`. The decoder reads one
 * spelling: snake_case keys become camelCase, outside the client's own data. Answers the object
 * itself when it has no snake_case key, so a request from an SDK costs no copy.
 */
export function readCamelCase(value: JsonObject): JsonObject {
  let copy: JsonObject | undefined;
  for (const key of Object.keys(value)) {
    const camel = key.includes('_') && !key.startsWith('_') ? key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase()) : key;
    const inner = value[key];
    const converted = opaque.has(camel) ? inner : convertValue(inner);
    if (camel !== key || converted !== inner) {
      copy ??= { ...value };
      delete copy[key];
      copy[camel] = converted;
    }
  }
  return copy ?? value;
}

function convertValue(value: unknown): unknown {
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item) => {
      const converted = convertValue(item);
      if (converted !== item) changed = true;
      return converted;
    });
    return changed ? items : value;
  }
  return isJsonObject(value) ? readCamelCase(value) : value;
}
