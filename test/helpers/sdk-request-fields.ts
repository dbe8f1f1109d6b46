import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * A file of an installed package: the test clients' install (test/node_modules, see
 * scripts/install-test-clients.mjs) first, as the suites that drive those clients resolve them, then
 * the root install.
 */
function installedFile(packageFile: string): string {
  const inTestClients = fileURLToPath(new URL(`../node_modules/${packageFile}`, import.meta.url));
  return existsSync(inTestClients) ? inTestClients : fileURLToPath(new URL(`../../node_modules/${packageFile}`, import.meta.url));
}

/**
 * The top-level property names of an interface declared in an installed package's `.d.ts`, read
 * with the TypeScript compiler API: the SDK's own request types are the reference of a style's
 * fields (contract §4), so a field added by an SDK upgrade shows up here.
 */
export function interfaceFields(packageFile: string, interfaceName: string): string[] {
  const path = installedFile(packageFile);
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const fields: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === interfaceName) {
      for (const member of node.members) if (member.name) fields.push(member.name.getText(source));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (fields.length === 0) throw new Error(`${interfaceName} not found in ${packageFile}`);
  return fields;
}

/** The Markdown between `<!-- fields:NAME:start -->` and `<!-- fields:NAME:end -->` in a text. */
export function markedSection(text: string, name: string): string | undefined {
  const start = `<!-- fields:${name}:start -->`;
  const end = `<!-- fields:${name}:end -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to === -1) return undefined;
  return text.slice(from + start.length, to).trim();
}

/** One object type an SDK accepts at a nested path: the values of its discriminator, and its property names. */
export interface SdkVariant {
  name: string;
  /** The string literals of its discriminator property (`type`, or `role` for chat messages); empty when it has none. */
  discriminator: string[];
  properties: string[];
}

const programs = new Map<string, ts.Program>();

function programOf(path: string): ts.Program {
  let program = programs.get(path);
  if (!program) {
    program = ts.createProgram([path], { strict: true, noEmit: true, skipLibCheck: true, types: [] });
    programs.set(path, program);
  }
  return program;
}

/**
 * The object types an SDK request interface accepts at a dotted path (`thinking`, `tools[]`,
 * `messages[].content[]`: `[]` steps into an array's elements), read with the TypeScript type
 * checker so that type aliases, unions and imports from other files resolve. Strings, arrays and
 * null beside the objects (`content: string | Array<…>`) are left out.
 */
export function nestedVariants(packageFile: string, interfaceName: string, path: string, discriminator = 'type'): SdkVariant[] {
  const { checker, types } = nestedTypes(packageFile, interfaceName, path);
  const flatten = (type: ts.Type): ts.Type[] => (type.isUnion() ? type.types.flatMap(flatten) : [type]);
  return types.map((type) => {
    const tag = type.getProperty(discriminator);
    const values = tag ? flatten(checker.getTypeOfSymbol(tag)).flatMap((value) => (value.isStringLiteral() ? [value.value] : [])) : [];
    return { name: checker.typeToString(type), discriminator: values, properties: type.getProperties().map((property) => property.name) };
  });
}

/**
 * The string literals an SDK request type allows for a property at a dotted path (`thinking.display`:
 * the `display` of every `thinking` variant that has one), with the discriminator values of the
 * variants that have it, read with the type checker as `nestedVariants` does: a value added by an
 * SDK upgrade shows up here. Null and other non-literal members of the union are left out.
 */
export function nestedLiterals(packageFile: string, interfaceName: string, path: string, discriminator = 'type'): Array<{ variant: string[]; values: string[] }> {
  const at = path.lastIndexOf('.');
  const property = path.slice(at + 1);
  const { checker, types } = nestedTypes(packageFile, interfaceName, path.slice(0, at));
  const literals = (type: ts.Type): string[] => (type.isUnion() ? type.types.flatMap(literals) : type.isStringLiteral() ? [type.value] : []);
  const found = types.flatMap((type) => {
    const symbol = type.getProperty(property);
    if (!symbol) return [];
    const tag = type.getProperty(discriminator);
    return [{ variant: tag ? literals(checker.getTypeOfSymbol(tag)) : [], values: literals(checker.getTypeOfSymbol(symbol)) }];
  });
  if (found.length === 0) throw new Error(`${interfaceName} has no ${path} in ${packageFile}`);
  return found;
}

/** The object types an SDK request interface accepts at a dotted path (see `nestedVariants`), with the checker that read them. */
function nestedTypes(packageFile: string, interfaceName: string, path: string): { checker: ts.TypeChecker; types: ts.Type[] } {
  const file = installedFile(packageFile);
  const program = programOf(file);
  const checker = program.getTypeChecker();
  let root: ts.Type | undefined;
  const visit = (node: ts.Node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === interfaceName) root = checker.getTypeAtLocation(node);
    else ts.forEachChild(node, visit);
  };
  visit(program.getSourceFile(file)!);
  if (!root) throw new Error(`${interfaceName} not found in ${packageFile}`);
  const flatten = (type: ts.Type): ts.Type[] => (type.isUnion() ? type.types.flatMap(flatten) : [type]);
  const isArray = (type: ts.Type) => checker.isArrayType(type) || checker.isTupleType(type);
  let types = [root];
  for (const segment of path.split('.')) {
    const array = segment.endsWith('[]');
    const name = array ? segment.slice(0, -2) : segment;
    types = types.flatMap((type) => {
      const property = type.getProperty(name);
      return property ? flatten(checker.getTypeOfSymbol(property)) : [];
    });
    if (array) types = types.filter(isArray).flatMap((type) => flatten(checker.getTypeArguments(type as ts.TypeReference)[0]!));
    types = [...new Set(types.filter((type) => (type.flags & ts.TypeFlags.Object) !== 0 && !isArray(type)))];
  }
  if (types.length === 0) throw new Error(`${interfaceName} has no object at ${path} in ${packageFile}`);
  return { checker, types };
}

/** What a field-table test says about one nested path it keeps dotted rows for. */
export interface NestedPath {
  /** The property that tells the variants apart; default `type`. */
  discriminator?: string;
  /**
   * The discriminator values the decoder accepts here. Every other value the SDK allows must be
   * refused as a whole (the parent row says so), so the properties of those variants need no rows.
   * Absent: every variant is accepted.
   */
  accepted?: string[];
  /** Properties that have no row of their own, each with why. */
  covered?: Record<string, string>;
}

/** The nested paths a table keeps dotted rows for: `thinking` for `thinking.display`, `tools[]` for `tools[].type=namespace`. */
export function dottedPrefixes(fields: readonly string[]): string[] {
  return [...new Set(fields.filter((field) => field.includes('.')).map((field) => field.slice(0, field.lastIndexOf('.'))))].sort();
}

/** A request body with `value` at `path` (`messages[].content[]` → one user message holding it), on top of `base`. */
export function bodyAt(base: Record<string, unknown>, path: string, value: unknown): { body: Record<string, unknown>; field: string } {
  const segments = path.split('.');
  let inner = value;
  const field: string[] = [];
  for (let index = segments.length - 1; index >= 0; index--) {
    const segment = segments[index]!;
    const array = segment.endsWith('[]');
    const name = array ? segment.slice(0, -2) : segment;
    field.unshift(array ? `${name}[0]` : name);
    const wrapped = array ? [inner] : inner;
    // An enclosing message is a user turn.
    inner = index === 0 ? wrapped : { role: 'user', [name]: wrapped };
  }
  return { body: { ...base, [segments[0]!.replace('[]', '')]: inner }, field: field.join('.') };
}

/**
 * Holds one nested path of a field table against the SDK's variants there: the properties of the
 * accepted variants that have neither a row nor a `covered` reason, the `covered` entries no
 * accepted variant has (stale), and the discriminator values outside `accepted` that the
 * decoder does not refuse by naming the discriminator.
 */
export function nestedCoverage(
  rows: ReadonlySet<string>,
  path: string,
  spec: NestedPath,
  variants: SdkVariant[],
  refusedParam: (body: Record<string, unknown>) => string | undefined,
  base: Record<string, unknown>,
): { missing: string[]; stale: string[]; notRefused: string[] } {
  const discriminator = spec.discriminator ?? 'type';
  const isAccepted = (value: string) => spec.accepted === undefined || spec.accepted.includes(value);
  const accepted = variants.filter((variant) => variant.discriminator.length === 0 || variant.discriminator.some(isAccepted));
  const properties = new Set(accepted.flatMap((variant) => variant.properties));
  const covered = spec.covered ?? {};
  const missing = [...properties].filter((property) => !rows.has(`${path}.${property}`) && !(property in covered)).map((property) => `${path}.${property}`);
  const stale = Object.keys(covered).filter((property) => !properties.has(property) || rows.has(`${path}.${property}`)).map((property) => `${path}.${property}`);
  const refusedValues = [...new Set(variants.flatMap((variant) => variant.discriminator))].filter((value) => !isAccepted(value));
  const notRefused = refusedValues.filter((value) => {
    const { body, field } = bodyAt(base, path, { [discriminator]: value });
    return refusedParam(body) !== `${field}.${discriminator}`;
  });
  return { missing: missing.sort(), stale, notRefused };
}
