import type { ToolChoice, ToolDefinition } from '../../core/text-request.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import type { FunctionToolWire, ToolChoiceWire } from './responses-wire.js';
import { isAbsent, isJsonObject, readArray, readBoolean, readObject, rejectUnknownKeys } from '../shared/read-json-fields.js';
import { expectString } from './validate-shape.js';

const functionToolKeys = new Set(['type', 'name', 'description', 'parameters', 'strict']);
const toolChoiceFunctionKeys = new Set(['type', 'name']);

export interface DecodedTools {
  tools: ToolDefinition[];
  echo: FunctionToolWire[];
}

/**
 * Only `function` tools: built-in tools (web_search, file_search, computer_use, code_interpreter,
 * mcp…) run inside OpenAI, and no provider behind this gateway would execute them.
 */
export function decodeTools(value: unknown): DecodedTools {
  const result: DecodedTools = { tools: [], echo: [] };
  const seen = new Set<string>();
  readArray(value, 'tools').forEach((entry, index) => {
    const path = `tools[${index}]`;
    const tool = readObject(entry, path);
    if (tool.type !== 'function') {
      if (typeof tool.type !== 'string') throw invalidRequest(`'${path}.type' is required`, `${path}.type`);
      throw unsupportedParameter(`${path}.type`, `'${tool.type}' is a built-in tool this gateway does not run; only 'function' tools are supported`);
    }
    rejectUnknownKeys(tool, functionToolKeys, path);
    const name = expectString(tool.name, `${path}.name`);
    if (seen.has(name)) throw invalidRequest(`'${path}.name' repeats the function name '${name}'`, `${path}.name`);
    seen.add(name);
    const description = isAbsent(tool.description) ? undefined : expectString(tool.description, `${path}.description`);
    if (!isAbsent(tool.parameters) && !isJsonObject(tool.parameters)) {
      throw invalidRequest(`'${path}.parameters' must be a JSON Schema object`, `${path}.parameters`);
    }
    const strict = isAbsent(tool.strict) ? undefined : readBoolean(tool.strict, `${path}.strict`);
    result.tools.push({
      name,
      ...(description === undefined ? {} : { description }),
      // A function without parameters is called with an empty object.
      parameters: tool.parameters ?? { type: 'object', properties: {} },
      ...(strict === undefined ? {} : { strict }),
    });
    result.echo.push({ type: 'function', name, description: description ?? null, parameters: tool.parameters ?? null, strict: strict ?? null });
  });
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
