import type { ToolChoice, ToolDefinition, WebSearchOptions } from '../../core/text-request.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { isAbsent, readArray, readEnum, readObject, readString, readStringList, rejectUnknownKeys } from '../shared/read-json-fields.js';
import { convertOpenApiSchema } from './convert-openapi-schema.js';

const declarationKeys = new Set(['name', 'description', 'parameters', 'parametersJsonSchema', 'response', 'responseJsonSchema', 'behavior']);

export interface DecodedTools {
  tools: ToolDefinition[];
  webSearch?: WebSearchOptions;
}

/**
 * `tools`: `functionDeclarations` (parameters as the OpenAPI subset or as JSON Schema) and
 * `googleSearch`, the hosted search every protocol has. Other tools (code execution, URL context,
 * file search, Maps, …) run only inside Google's API: refused by name, as the field table says.
 * `response`/`responseJsonSchema` describe what the function returns, for Gemini's own use:
 * accepted, and not sent (no other protocol has them).
 */
export function decodeTools(value: unknown): DecodedTools {
  const tools: ToolDefinition[] = [];
  let webSearch: WebSearchOptions | undefined;
  readArray(value, 'tools').forEach((entry, index) => {
    const path = `tools[${index}]`;
    const tool = readObject(entry, path);
    for (const key of Object.keys(tool)) {
      if (key === 'functionDeclarations') {
        readArray(tool.functionDeclarations, `${path}.functionDeclarations`).forEach((declaration, at) => tools.push(decodeDeclaration(declaration, `${path}.functionDeclarations[${at}]`)));
      } else if (key === 'googleSearch') {
        const search = readObject(tool.googleSearch, `${path}.googleSearch`);
        // timeRangeFilter and excludeDomains restrict what is searched: no other search takes them.
        rejectUnknownKeys(search, new Set(), `${path}.googleSearch`);
        webSearch = {};
      } else if (!isAbsent(tool[key])) {
        throw unsupportedParameter(`tools[].${key}`, 'is not supported: of the Gemini API’s tools the gateway takes functionDeclarations and googleSearch');
      }
    }
  });
  return webSearch ? { tools, webSearch } : { tools };
}

function decodeDeclaration(value: unknown, path: string): ToolDefinition {
  const declaration = readObject(value, path);
  rejectUnknownKeys(declaration, declarationKeys, path);
  const tool: ToolDefinition = { name: readString(declaration.name, `${path}.name`, { nonEmpty: true }), parameters: { type: 'object', properties: {} } };
  if (!isAbsent(declaration.description)) tool.description = readString(declaration.description, `${path}.description`);
  if (!isAbsent(declaration.parametersJsonSchema)) tool.parameters = readObject(declaration.parametersJsonSchema, `${path}.parametersJsonSchema`);
  else if (!isAbsent(declaration.parameters)) tool.parameters = convertOpenApiSchema(readObject(declaration.parameters, `${path}.parameters`));
  if (!isAbsent(declaration.behavior)) readEnum(declaration.behavior, `${path}.behavior`, ['UNSPECIFIED', 'BLOCKING', 'NON_BLOCKING']);
  return tool;
}

export interface DecodedToolConfig {
  toolChoice?: ToolChoice;
  /** `ANY` with several allowed names: only those tools may be called, so only those are offered. */
  allowedNames?: string[];
}

/**
 * `toolConfig.functionCallingConfig`: `AUTO` (and `VALIDATED`, Gemini's auto mode whose calls
 * follow the schema, which the other protocols' calls do) → auto, `ANY` → required (one allowed
 * name → that function), `NONE` → none. `retrievalConfig` and
 * `includeServerSideToolInvocations` concern Google's own tools: accepted, Gemini's only.
 * https://ai.google.dev/gemini-api/docs/function-calling#function_calling_modes
 */
export function decodeToolConfig(value: unknown): DecodedToolConfig {
  const config = readObject(value, 'toolConfig');
  rejectUnknownKeys(config, new Set(['functionCallingConfig', 'retrievalConfig', 'includeServerSideToolInvocations']), 'toolConfig');
  if (isAbsent(config.functionCallingConfig)) return {};
  const calling = readObject(config.functionCallingConfig, 'toolConfig.functionCallingConfig');
  rejectUnknownKeys(calling, new Set(['mode', 'allowedFunctionNames', 'streamFunctionCallArguments']), 'toolConfig.functionCallingConfig');
  const mode = isAbsent(calling.mode) ? 'AUTO' : readEnum(calling.mode, 'toolConfig.functionCallingConfig.mode', ['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED']);
  const names = isAbsent(calling.allowedFunctionNames) ? undefined : readStringList(calling.allowedFunctionNames, 'toolConfig.functionCallingConfig.allowedFunctionNames');
  if (names && mode !== 'ANY') throw invalidRequest("'toolConfig.functionCallingConfig.allowedFunctionNames' is only allowed with mode ANY", 'toolConfig.functionCallingConfig.allowedFunctionNames');
  if (mode === 'NONE') return { toolChoice: 'none' };
  if (mode !== 'ANY') return { toolChoice: 'auto' };
  if (names?.length === 1) return { toolChoice: { type: 'tool', name: names[0] } };
  return names && names.length > 1 ? { toolChoice: 'required', allowedNames: names } : { toolChoice: 'required' };
}

/** Narrows the offered tools to the allowed names, refusing a name no declaration has. */
export function onlyAllowedTools(tools: ToolDefinition[], names: string[]): ToolDefinition[] {
  for (const name of names) {
    if (!tools.some((tool) => tool.name === name)) {
      throw invalidRequest(`'toolConfig.functionCallingConfig.allowedFunctionNames' names '${name}', which no function declaration has`, 'toolConfig.functionCallingConfig.allowedFunctionNames');
    }
  }
  return tools.filter((tool) => names.includes(tool.name));
}
