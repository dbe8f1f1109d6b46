import { isJsonObject, type JsonObject } from '../shared/read-json-fields.js';

/** Keys of the Gemini API's `Schema` whose values are schemas, lists of schemas, or maps of them. */
const schemaKeys = new Set(['items']);
const schemaListKeys = new Set(['anyOf', 'prefixItems']);
const schemaMapKeys = new Set(['properties']);

/**
 * The Gemini API's `Schema` (an OpenAPI 3.0 subset, `type` in capitals as the SDK's `Type` enum
 * sends it, `nullable`, `propertyOrdering`) → JSON Schema, which every provider takes.
 * https://ai.google.dev/api/caching#Schema
 */
export function convertOpenApiSchema(schema: JsonObject): JsonObject {
  const converted: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'propertyOrdering' || key === 'nullable') continue;
    if (key === 'type' && typeof value === 'string') converted.type = value.toLowerCase();
    else if (schemaKeys.has(key) && isJsonObject(value)) converted[key] = convertOpenApiSchema(value);
    else if (schemaListKeys.has(key) && Array.isArray(value)) converted[key] = value.map((item) => (isJsonObject(item) ? convertOpenApiSchema(item) : item));
    else if (schemaMapKeys.has(key) && isJsonObject(value)) {
      converted[key] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, isJsonObject(item) ? convertOpenApiSchema(item) : item]));
    } else if ((key === 'minItems' || key === 'maxItems' || key === 'minLength' || key === 'maxLength' || key === 'minProperties' || key === 'maxProperties') && typeof value === 'string') {
      // int64 fields travel as strings in Google's JSON mapping.
      converted[key] = Number(value);
    } else converted[key] = value;
  }
  if (schema.nullable === true && typeof converted.type === 'string') converted.type = [converted.type, 'null'];
  return converted;
}
