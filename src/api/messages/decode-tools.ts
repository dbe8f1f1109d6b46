import type { ToolChoice, ToolDefinition, WebSearchOptions } from '../../core/text-request.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { isAbsent, readArray, readBoolean, readObject, readString, readStringList, rejectUnknownKeys, type JsonObject } from '../shared/read-json-fields.js';
import { checkCacheControl } from './decode-content-blocks.js';
import type { OfferedHostedTool } from '../shared/text-call.js';

/** `defer_loading` and `eager_input_streaming` are hints (see the field table): checked, not forwarded. */
const toolKeys = new Set(['type', 'name', 'description', 'input_schema', 'cache_control', 'strict', 'defer_loading', 'eager_input_streaming']);
const choiceKeys: Record<string, ReadonlySet<string>> = {
  auto: new Set(['type', 'disable_parallel_tool_use']),
  any: new Set(['type', 'disable_parallel_tool_use']),
  tool: new Set(['type', 'name', 'disable_parallel_tool_use']),
  none: new Set(['type']),
};

const webSearchKeys = new Set(['type', 'name', 'max_uses', 'allowed_domains', 'blocked_domains', 'user_location', 'cache_control']);
/**
 * Anthropic's server tools that no provider protocol of this gateway runs (web fetch, code
 * execution), by the prefix of their versioned type: offered, the request is served without them
 * and says so (contract §4); forced by `tool_choice`, refused.
 */
const unservedServerTools = ['web_fetch_', 'code_execution_'];

export interface DecodedTools {
  tools: ToolDefinition[];
  webSearch?: WebSearchOptions;
  /** The web search tool's domain filter (`tools[i].allowed_domains` or `.blocked_domains`), when it has one. */
  domainFilter?: string;
  /** Server tools offered that no provider runs here (`unservedServerTools`). */
  offered: OfferedHostedTool[];
  /** The names of the server tools offered (search included), which `tool_choice` may not force. */
  serverToolNames: string[];
}

/**
 * `tools`: custom tools, and the web search server tool, which becomes the hosted search of
 * whichever provider serves (Anthropic's own tool, Gemini's grounding, OpenAI's search). Web
 * fetch and code execution are offers the request is served without. The tools Anthropic defines
 * for the client to run (bash, text editor, computer, memory) have no equivalent elsewhere: refused.
 */
export function decodeTools(value: unknown): DecodedTools {
  const decoded: DecodedTools = { tools: [], offered: [], serverToolNames: [] };
  decoded.tools = readArray(value, 'tools').flatMap((entry, index): ToolDefinition[] => {
    const field = `tools[${index}]`;
    const tool = readObject(entry, field);
    if (typeof tool.type === 'string' && tool.type.startsWith('web_search_')) {
      decoded.webSearch = decodeWebSearchTool(tool, field);
      const filter = decoded.webSearch.allowedDomains ? 'allowed_domains' : decoded.webSearch.blockedDomains ? 'blocked_domains' : undefined;
      if (filter) decoded.domainFilter = `${field}.${filter}`;
      decoded.serverToolNames.push(typeof tool.name === 'string' ? tool.name : 'web_search');
      return [];
    }
    if (typeof tool.type === 'string' && unservedServerTools.some((prefix) => (tool.type as string).startsWith(prefix))) {
      decoded.offered.push({ tool: tool.type, field: `tools[type=${tool.type}]` });
      if (typeof tool.name === 'string') decoded.serverToolNames.push(tool.name);
      return [];
    }
    if (!isAbsent(tool.type) && tool.type !== 'custom') {
      throw unsupportedParameter(`${field}.type`, `value '${String(tool.type)}' is not supported (this tool exists only on Anthropic's API; use custom tools, web_search, web_fetch or code_execution)`);
    }
    rejectUnknownKeys(tool, toolKeys, field);
    checkCacheControl(tool.cache_control, `${field}.cache_control`);
    if (!isAbsent(tool.defer_loading)) readBoolean(tool.defer_loading, `${field}.defer_loading`);
    if (!isAbsent(tool.eager_input_streaming)) readBoolean(tool.eager_input_streaming, `${field}.eager_input_streaming`);
    const definition: ToolDefinition = {
      name: readString(tool.name, `${field}.name`, { nonEmpty: true }),
      parameters: readObject(tool.input_schema, `${field}.input_schema`),
    };
    if (!isAbsent(tool.description)) definition.description = readString(tool.description, `${field}.description`);
    if (!isAbsent(tool.strict)) definition.strict = readBoolean(tool.strict, `${field}.strict`);
    return [definition];
  });
  return decoded;
}

/**
 * The web search server tool's settings. A domain filter (`allowed_domains` or `blocked_domains`,
 * not both, as Anthropic says) restricts what is searched: a requirement only Anthropic's search
 * meets (the decoder routes on it); an empty list restricts nothing. `max_uses` is a hint,
 * forwarded only when the request is relayed as sent.
 */
function decodeWebSearchTool(tool: JsonObject, field: string): WebSearchOptions {
  rejectUnknownKeys(tool, webSearchKeys, field);
  const options: WebSearchOptions = {};
  const allowed = isAbsent(tool.allowed_domains) ? [] : readStringList(tool.allowed_domains, `${field}.allowed_domains`);
  const blocked = isAbsent(tool.blocked_domains) ? [] : readStringList(tool.blocked_domains, `${field}.blocked_domains`);
  if (allowed.length > 0 && blocked.length > 0) {
    throw invalidRequest(`'${field}.allowed_domains' and '${field}.blocked_domains' cannot be used together; send one of them`, `${field}.blocked_domains`);
  }
  if (allowed.length > 0) options.allowedDomains = allowed;
  if (blocked.length > 0) options.blockedDomains = blocked;
  if (!isAbsent(tool.user_location)) {
    const location = readObject(tool.user_location, `${field}.user_location`);
    rejectUnknownKeys(location, new Set(['type', 'city', 'country', 'region', 'timezone']), `${field}.user_location`);
    const userLocation: NonNullable<WebSearchOptions['userLocation']> = {};
    for (const key of ['city', 'country', 'region', 'timezone'] as const) {
      if (!isAbsent(location[key])) userLocation[key] = readString(location[key], `${field}.user_location.${key}`);
    }
    options.userLocation = userLocation;
  }
  return options;
}

export interface DecodedToolChoice {
  toolChoice: ToolChoice;
  /** Set when the client sent `disable_parallel_tool_use`. */
  parallelToolCalls?: boolean;
}

/**
 * `tool_choice`: `{type: auto | any | tool | none}`; `any` is OpenAI's `required`. Naming a server
 * tool forces it: the gateway cannot make any provider run a server tool, so that is refused.
 */
export function decodeToolChoice(value: unknown, tools: ToolDefinition[] | undefined, serverToolNames: readonly string[] = []): DecodedToolChoice {
  const choice = readObject(value, 'tool_choice');
  if (choice.type === 'tool' && typeof choice.name === 'string' && serverToolNames.includes(choice.name)) {
    throw unsupportedParameter(
      'tool_choice.name',
      `forces the server tool '${choice.name}', which the gateway cannot make any provider run; send tool_choice auto to offer it (the model decides, and where the endpoint has no such tool the request is served without it)`,
    );
  }
  const decoded = decodeChoiceType(choice.type, choice.name, tools);
  rejectUnknownKeys(choice, choiceKeys[choice.type as string], 'tool_choice');
  if (isAbsent(choice.disable_parallel_tool_use)) return { toolChoice: decoded };
  return { toolChoice: decoded, parallelToolCalls: !readBoolean(choice.disable_parallel_tool_use, 'tool_choice.disable_parallel_tool_use') };
}

function decodeChoiceType(type: unknown, name: unknown, tools: ToolDefinition[] | undefined): ToolChoice {
  switch (type) {
    case 'auto':
    case 'none':
      return type;
    case 'any':
      return 'required';
    case 'tool': {
      const toolName = readString(name, 'tool_choice.name', { nonEmpty: true });
      if (!tools?.some((tool) => tool.name === toolName)) {
        throw invalidRequest(`'tool_choice.name' names '${toolName}', which is not in 'tools'`, 'tool_choice.name');
      }
      return { type: 'tool', name: toolName };
    }
    default:
      throw invalidRequest("'tool_choice.type' must be one of auto, any, tool, none", 'tool_choice.type');
  }
}
