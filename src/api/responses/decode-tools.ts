import type { ToolChoice, ToolDefinition, WebSearchOptions } from '../../core/text-request.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import type { OfferedHostedTool } from '../shared/text-call.js';
import type { FunctionToolWire, ToolChoiceWire, ToolSearchToolWire, ToolWire, WebSearchToolWire } from './responses-wire.js';
import { joinNamespacedName, type ToolNamespaces } from './tool-namespaces.js';
import { isAbsent, isJsonObject, readArray, readBoolean, readEnum, readObject, rejectUnknownKeys, type JsonObject } from '../shared/read-json-fields.js';
import { expectString } from './validate-shape.js';

// `defer_loading` asks OpenAI to hide the tool until a tool search finds it; every tool is
// simply offered here. `allowed_callers` and `output_schema` concern OpenAI's programmatic caller.
const functionToolKeys = new Set(['type', 'name', 'description', 'parameters', 'strict', 'defer_loading', 'allowed_callers', 'output_schema']);
const namespaceKeys = new Set(['type', 'name', 'description', 'tools']);
// `external_web_access` (Codex) picks live or cached results at OpenAI: a hint elsewhere.
const webSearchKeys = new Set(['type', 'filters', 'search_context_size', 'user_location', 'external_web_access']);
const webSearchTypes = new Set(['web_search', 'web_search_2025_08_26', 'web_search_preview', 'web_search_preview_2025_03_11']);
const toolChoiceFunctionKeys = new Set(['type', 'name']);
/**
 * OpenAI's hosted tools that no provider protocol of this gateway runs: offered (tool_choice auto
 * or none), the request is served without them and says so (contract §4); forced, refused.
 */
const unservedHostedTools = new Set(['file_search', 'code_interpreter', 'image_generation', 'mcp']);
const hostedToolTypes = new Set([...webSearchTypes, ...unservedHostedTools]);

export interface DecodedTools {
  tools: ToolDefinition[];
  echo: ToolWire[];
  namespaces: ToolNamespaces;
  webSearch?: WebSearchOptions;
  /** The web search tool's domain filter (`tools[i].filters.allowed_domains`), when it restricts anything. */
  domainFilter?: string;
  /** Hosted tools offered that no provider runs here (`unservedHostedTools`). */
  offered: OfferedHostedTool[];
}

/**
 * `function` tools, Codex's `namespace` groups of functions (flattened, see tool-namespaces.ts)
 * and the hosted `web_search` tool, which the provider's own search runs. The hosted tools no
 * provider runs here (file_search, code_interpreter, image_generation, mcp) are offers the
 * request is served without. Tools the client runs in OpenAI's own shapes (computer_use, shell,
 * apply_patch, custom…) have no equivalent elsewhere: refused by name.
 */
export function decodeTools(value: unknown): DecodedTools {
  const result: DecodedTools = { tools: [], echo: [], namespaces: new Map(), offered: [] };
  const seen = new Set<string>();
  const add = (tool: ToolDefinition, path: string) => {
    if (seen.has(tool.name)) throw invalidRequest(`'${path}.name' repeats the function name '${tool.name}'`, `${path}.name`);
    seen.add(tool.name);
    result.tools.push(tool);
  };
  readArray(value, 'tools').forEach((entry, index) => {
    const path = `tools[${index}]`;
    const tool = readObject(entry, path);
    if (typeof tool.type !== 'string') throw invalidRequest(`'${path}.type' is required`, `${path}.type`);
    if (tool.type === 'function') {
      const decoded = decodeFunction(tool, path);
      add(decoded.tool, path);
      result.echo.push(decoded.echo);
    } else if (tool.type === 'namespace') {
      rejectUnknownKeys(tool, namespaceKeys, path);
      const namespace = expectString(tool.name, `${path}.name`);
      const functions = readArray(tool.tools, `${path}.tools`).map((inner, innerIndex) => {
        const innerPath = `${path}.tools[${innerIndex}]`;
        const fn = readObject(inner, innerPath);
        if (fn.type !== 'function') {
          throw unsupportedParameter(`${innerPath}.type`, `'${String(fn.type)}' is not supported inside a namespace; only 'function' tools`);
        }
        const decoded = decodeFunction(fn, innerPath);
        const flatName = joinNamespacedName(namespace, decoded.tool.name);
        result.namespaces.set(flatName, { namespace, name: decoded.tool.name });
        add({ ...decoded.tool, name: flatName }, innerPath);
        return decoded.echo;
      });
      result.echo.push({ type: 'namespace', name: namespace, description: isAbsent(tool.description) ? '' : expectString(tool.description, `${path}.description`), tools: functions });
    } else if (webSearchTypes.has(tool.type)) {
      if (result.webSearch) throw invalidRequest(`'${path}' repeats the web search tool`, path);
      result.webSearch = decodeWebSearch(tool, path);
      if (result.webSearch.allowedDomains) result.domainFilter = `${path}.filters.allowed_domains`;
      result.echo.push(tool as unknown as WebSearchToolWire);
    } else if (tool.type === 'tool_search') {
      // OpenAI's search over tools marked `defer_loading`: the gateway offers every tool
      // directly, so there is nothing left to search and the tool is not forwarded.
      rejectUnknownKeys(tool, new Set(['type', 'description', 'execution', 'parameters']), path);
      if (!isAbsent(tool.execution) && tool.execution !== 'server') {
        throw unsupportedParameter(`${path}.execution`, "'client' is not supported; the gateway offers deferred tools directly, leave execution out or use 'server'");
      }
      result.echo.push(tool as unknown as ToolSearchToolWire);
    } else if (unservedHostedTools.has(tool.type)) {
      const field = `tools[type=${tool.type}]`;
      if (result.offered.some((offered) => offered.field === field)) throw invalidRequest(`'${path}' repeats the ${tool.type} tool`, path);
      result.offered.push({ tool: tool.type, field });
    } else {
      throw unsupportedParameter(`${path}.type`, `'${tool.type}' is a built-in tool this gateway does not run; use 'function', 'namespace', 'web_search' or 'tool_search' tools`);
    }
  });
  return result;
}

function decodeFunction(tool: JsonObject, path: string): { tool: ToolDefinition; echo: FunctionToolWire } {
  rejectUnknownKeys(tool, functionToolKeys, path);
  const name = expectString(tool.name, `${path}.name`);
  const description = isAbsent(tool.description) ? undefined : expectString(tool.description, `${path}.description`);
  if (!isAbsent(tool.parameters) && !isJsonObject(tool.parameters)) {
    throw invalidRequest(`'${path}.parameters' must be a JSON Schema object`, `${path}.parameters`);
  }
  if (!isAbsent(tool.defer_loading)) readBoolean(tool.defer_loading, `${path}.defer_loading`);
  const strict = isAbsent(tool.strict) ? undefined : readBoolean(tool.strict, `${path}.strict`);
  return {
    tool: {
      name,
      ...(description === undefined ? {} : { description }),
      // A function without parameters is called with an empty object.
      parameters: (tool.parameters as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} },
      ...(strict === undefined ? {} : { strict }),
    },
    echo: { type: 'function', name, description: description ?? null, parameters: (tool.parameters as Record<string, unknown> | undefined) ?? null, strict: strict ?? null },
  };
}

/**
 * OpenAI's web search settings, in the canonical shape every provider's search tool reads. A
 * domain filter is a routing requirement (see `webSearchDomainFilter`); an empty or null list,
 * or `filters` without one, restricts nothing and is no requirement.
 */
function decodeWebSearch(tool: JsonObject, path: string): WebSearchOptions {
  rejectUnknownKeys(tool, webSearchKeys, path);
  if (!isAbsent(tool.external_web_access)) readBoolean(tool.external_web_access, `${path}.external_web_access`);
  const options: WebSearchOptions = {};
  if (!isAbsent(tool.search_context_size)) {
    options.contextSize = readEnum(tool.search_context_size, `${path}.search_context_size`, ['low', 'medium', 'high'] as const);
  }
  if (!isAbsent(tool.filters)) {
    const filters = readObject(tool.filters, `${path}.filters`);
    rejectUnknownKeys(filters, new Set(['allowed_domains']), `${path}.filters`);
    if (!isAbsent(filters.allowed_domains)) {
      const domains = readArray(filters.allowed_domains, `${path}.filters.allowed_domains`).map((domain, index) =>
        expectString(domain, `${path}.filters.allowed_domains[${index}]`),
      );
      if (domains.length > 0) options.allowedDomains = domains;
    }
  }
  if (!isAbsent(tool.user_location)) options.userLocation = decodeUserLocation(tool.user_location, `${path}.user_location`);
  return options;
}

export function decodeUserLocation(value: unknown, path: string): NonNullable<WebSearchOptions['userLocation']> {
  const location = readObject(value, path);
  rejectUnknownKeys(location, new Set(['type', 'city', 'country', 'region', 'timezone']), path);
  const result: NonNullable<WebSearchOptions['userLocation']> = {};
  for (const key of ['city', 'country', 'region', 'timezone'] as const) {
    if (!isAbsent(location[key])) result[key] = expectString(location[key], `${path}.${key}`);
  }
  return result;
}

export interface DecodedToolChoice {
  toolChoice: ToolChoice;
  echo: ToolChoiceWire;
}

export function decodeToolChoice(value: unknown, tools: ToolDefinition[]): DecodedToolChoice {
  if (value === 'auto' || value === 'none' || value === 'required') return { toolChoice: value, echo: value };
  if (typeof value === 'string') throw invalidRequest("'tool_choice' must be one of auto, none, required, or {type: 'function', name}", 'tool_choice');
  const choice = readObject(value, 'tool_choice');
  if (typeof choice.type === 'string' && hostedToolTypes.has(choice.type)) {
    throw unsupportedParameter(
      'tool_choice.type',
      `'${choice.type}' forces a hosted tool, which the gateway cannot make any provider run; send tool_choice 'auto' to offer it (the model decides, and where the endpoint has no such tool the request is served without it)`,
    );
  }
  if (choice.type !== 'function') {
    throw unsupportedParameter('tool_choice.type', `'${String(choice.type)}' is not supported; expected 'function'`);
  }
  rejectUnknownKeys(choice, toolChoiceFunctionKeys, 'tool_choice');
  const name = expectString(choice.name, 'tool_choice.name');
  if (!tools.some((tool) => tool.name === name)) {
    throw invalidRequest(`'tool_choice.name' names '${name}', which is not a function in 'tools'`, 'tool_choice.name');
  }
  return { toolChoice: { type: 'tool', name }, echo: { type: 'function', name } };
}
