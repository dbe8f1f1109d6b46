/**
 * Builds tool call arguments from a JSON Schema: required properties only (recursing into
 * nested objects), strings "sample", numbers and integers 1, booleans true, enums their first
 * value. Gemini spells types in upper case (`STRING`, `OBJECT`), so types are compared lower-cased.
 */
export function buildToolArguments(schema: unknown): Record<string, unknown> {
  const value = buildValue(schema, 0);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

// Deep enough for any realistic tool; stops a self-referencing schema from looping.
const MAX_DEPTH = 8;

function buildValue(schema: unknown, depth: number): unknown {
  if (typeof schema !== 'object' || schema === null || depth > MAX_DEPTH) return 'sample';
  const node = schema as Record<string, unknown>;
  if ('const' in node) return node.const;
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0];
  const alternatives = node.anyOf ?? node.oneOf ?? node.allOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    const firstNonNull = alternatives.find((option) => typeOf(option) !== 'null') ?? alternatives[0];
    return buildValue(firstNonNull, depth + 1);
  }
  switch (typeOf(node)) {
    case 'object':
      return buildObject(node, depth);
    case 'array':
      return [buildValue(node.items, depth + 1)];
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return 'sample';
  }
}

function buildObject(node: Record<string, unknown>, depth: number): Record<string, unknown> {
  const properties = typeof node.properties === 'object' && node.properties !== null ? (node.properties as Record<string, unknown>) : {};
  const required = Array.isArray(node.required) ? node.required.filter((name): name is string => typeof name === 'string') : [];
  const result: Record<string, unknown> = {};
  for (const name of required) result[name] = buildValue(properties[name], depth + 1);
  return result;
}

function typeOf(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const node = schema as Record<string, unknown>;
  // `type: ["string", "null"]` means a nullable string: use the first non-null type.
  const declared = Array.isArray(node.type) ? node.type.find((type) => String(type).toLowerCase() !== 'null') ?? node.type[0] : node.type;
  if (typeof declared === 'string') return declared.toLowerCase();
  return node.properties !== undefined ? 'object' : undefined;
}
