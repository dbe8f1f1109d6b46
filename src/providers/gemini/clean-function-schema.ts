import { invalidRequest } from '../../errors/gateway-error.js';

type Schema = Record<string, unknown>;

/**
 * Keys of Gemini's `Schema` object, a subset of OpenAPI 3.0, that mean the same as in JSON
 * Schema and are copied unchanged. https://ai.google.dev/api/caching#Schema
 */
const copiedKeys = [
  'title', 'description', 'nullable', 'required', 'default', 'example', 'pattern', 'minimum', 'maximum',
  'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'propertyOrdering',
] as const;

/** The only `format` values Gemini accepts, per type; any other value is a 400. */
const supportedFormats: Record<string, string[]> = {
  string: ['enum', 'date-time'],
  integer: ['int32', 'int64'],
  number: ['float', 'double'],
};

interface CleanContext {
  toolName: string;
  definitions: Record<string, unknown>;
  /** Definitions being inlined on the current path, to detect recursive schemas. */
  resolving: Set<string>;
}

/**
 * Rewrites a tool's JSON Schema into the OpenAPI subset that `functionDeclarations[].parameters`
 * accepts. Gemini answers 400 `Invalid JSON payload received. Unknown name "additionalProperties"`
 * for any key outside that subset, and the usual schema generators (zod-to-json-schema, pydantic,
 * MCP servers) put `additionalProperties`, `$schema`, `$ref`/`$defs` or `const` into nearly every
 * tool, so refusing them would make tools unusable on Gemini. What is rewritten keeps the shape of
 * the arguments: local `$ref`s are inlined, `const` and `oneOf` become `enum` and `anyOf`, type
 * lists become `nullable`/`anyOf`. What is dropped are validation hints (`additionalProperties`,
 * `exclusiveMinimum`, unsupported `format`s, …) that no provider enforces for us anyway.
 * Returns undefined for a function without parameters, which Gemini wants omitted.
 */
export function cleanFunctionSchema(schema: Schema, toolName: string): Schema | undefined {
  const definitions = { ...asSchema(schema.definitions), ...asSchema(schema.$defs) };
  const cleaned = cleanNode(schema, { toolName, definitions, resolving: new Set() });
  const properties = cleaned.properties as Schema | undefined;
  if (cleaned.type === 'object' && (!properties || Object.keys(properties).length === 0)) return undefined;
  return cleaned;
}

function cleanNode(node: unknown, context: CleanContext): Schema {
  const source = asSchema(node);
  if (typeof source.$ref === 'string') return inlineReference(source, context);
  const types = (Array.isArray(source.type) ? source.type : [source.type]).filter((type) => type !== undefined);
  const nonNullTypes = types.filter((type) => type !== 'null');
  if (nonNullTypes.length > 1) {
    // Gemini's `type` is a single value: ["string", "number"] becomes anyOf of both.
    const variants = nonNullTypes.map((type) => cleanNode({ ...source, type }, context));
    return types.includes('null') ? { anyOf: variants, nullable: true } : { anyOf: variants };
  }
  const result: Schema = {};
  for (const key of copiedKeys) if (source[key] !== undefined) result[key] = source[key];
  if (nonNullTypes.length === 1) result.type = nonNullTypes[0];
  if (types.includes('null')) result.nullable = true;
  copyEnum(source, result);
  const format = source.format;
  if (typeof format === 'string' && supportedFormats[String(result.type)]?.includes(format)) result.format = format;
  if (source.properties !== undefined) result.properties = cleanProperties(source.properties, context);
  if (Array.isArray(source.items)) result.items = { anyOf: source.items.map((item) => cleanNode(item, context)) };
  else if (source.items !== undefined) result.items = cleanNode(source.items, context);
  copyVariants(source, result, context);
  if (Array.isArray(source.allOf)) {
    // `allOf` has no Gemini equivalent; its members are object parts in practice, so merge them.
    for (const member of source.allOf) mergeInto(result, cleanNode(member, context));
  }
  return result;
}

/**
 * `oneOf` becomes `anyOf`, the nearest Gemini has. A `{type: "null"}` member (pydantic's
 * `Optional[X]`) becomes `nullable`, and a single remaining member is merged in place.
 */
function copyVariants(source: Schema, result: Schema, context: CleanContext): void {
  const variants = [source.anyOf, source.oneOf].filter(Array.isArray).flat();
  const nonNull = variants.filter((variant) => asSchema(variant).type !== 'null');
  if (nonNull.length < variants.length) result.nullable = true;
  if (nonNull.length === 1) mergeInto(result, cleanNode(nonNull[0], context));
  else if (nonNull.length > 1) result.anyOf = nonNull.map((variant) => cleanNode(variant, context));
}

function cleanProperties(properties: unknown, context: CleanContext): Schema {
  const cleaned: Schema = {};
  for (const [name, value] of Object.entries(asSchema(properties))) cleaned[name] = cleanNode(value, context);
  return cleaned;
}

/** Gemini's `enum` holds strings only; other values stay visible to the model in the description. */
function copyEnum(source: Schema, result: Schema): void {
  const values = source.const !== undefined ? [source.const] : source.enum;
  if (!Array.isArray(values)) return;
  if (values.every((value) => typeof value === 'string')) {
    result.enum = values;
    return;
  }
  const allowed = `Allowed values: ${values.map((value) => JSON.stringify(value)).join(', ')}.`;
  result.description = typeof result.description === 'string' ? `${result.description} ${allowed}` : allowed;
}

/** Adds a member schema's keys to `result`: properties and required lists are joined, other keys kept if set. */
function mergeInto(result: Schema, member: Schema): void {
  for (const [key, value] of Object.entries(member)) {
    if (key === 'properties') result.properties = { ...asSchema(result.properties), ...asSchema(value) };
    else if (key === 'required' && Array.isArray(value)) result.required = [...((result.required as unknown[]) ?? []), ...value];
    else if (result[key] === undefined) result[key] = value;
  }
}

/** Gemini's `parameters` has no references: inline local ones; recursion cannot be expressed. */
function inlineReference(source: Schema, context: CleanContext): Schema {
  const reference = source.$ref as string;
  const prefix = ['#/$defs/', '#/definitions/'].find((candidate) => reference.startsWith(candidate));
  const name = prefix ? reference.slice(prefix.length) : undefined;
  if (name === undefined || !(name in context.definitions) || context.resolving.has(name)) {
    const why = name !== undefined && context.resolving.has(name) ? 'is recursive, which Gemini cannot express' : 'cannot be resolved';
    throw invalidRequest(`Tool '${context.toolName}': schema reference '${reference}' ${why}.`, 'tools');
  }
  const { $ref: _reference, ...siblings } = source;
  context.resolving.add(name);
  try {
    return cleanNode({ ...asSchema(context.definitions[name]), ...siblings }, context);
  } finally {
    context.resolving.delete(name);
  }
}

function asSchema(value: unknown): Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Schema) : {};
}
