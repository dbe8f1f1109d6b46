import type { ToolChoice, ToolDefinition } from '../../core/text-request.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { isAbsent, readArray, readBoolean, readObject, readString, rejectUnknownKeys } from '../shared/read-json-fields.js';

const toolKeys = new Set(['type', 'function']);
const functionKeys = new Set(['name', 'description', 'parameters', 'strict']);
const namedChoiceKeys = new Set(['type', 'function']);

/** `tools`: function tools only; custom (free-form grammar) tools have no canonical form. */
export function decodeTools(value: unknown): ToolDefinition[] {
  return readArray(value, 'tools').map((entry, index) => {
    const field = `tools[${index}]`;
    const tool = readObject(entry, field);
    if (tool.type !== 'function') {
      throw unsupportedParameter(`${field}.type`, `value '${String(tool.type)}' is not supported (only 'function' tools)`);
    }
    rejectUnknownKeys(tool, toolKeys, field);
    const fn = readObject(tool.function, `${field}.function`);
    rejectUnknownKeys(fn, functionKeys, `${field}.function`);
    const definition: ToolDefinition = {
      name: readString(fn.name, `${field}.function.name`, { nonEmpty: true }),
      // OpenAI reads an omitted `parameters` as a function that takes no arguments.
      parameters: isAbsent(fn.parameters) ? { type: 'object', properties: {} } : readObject(fn.parameters, `${field}.function.parameters`),
    };
    if (!isAbsent(fn.description)) definition.description = readString(fn.description, `${field}.function.description`);
    if (!isAbsent(fn.strict)) definition.strict = readBoolean(fn.strict, `${field}.function.strict`);
    return definition;
  });
}

/** `tool_choice`: `none` | `auto` | `required` | `{type: 'function', function: {name}}`. */
export function decodeToolChoice(value: unknown, tools: ToolDefinition[] | undefined): ToolChoice {
  if (value === 'none' || value === 'auto' || value === 'required') return value;
  if (typeof value === 'string') throw invalidRequest("'tool_choice' must be one of none, auto, required, or a function choice", 'tool_choice');
  const choice = readObject(value, 'tool_choice');
  if (choice.type !== 'function') {
    throw unsupportedParameter('tool_choice.type', `value '${String(choice.type)}' is not supported (only 'function')`);
  }
  rejectUnknownKeys(choice, namedChoiceKeys, 'tool_choice');
  const fn = readObject(choice.function, 'tool_choice.function');
  rejectUnknownKeys(fn, new Set(['name']), 'tool_choice.function');
  const name = readString(fn.name, 'tool_choice.function.name', { nonEmpty: true });
  if (!tools?.some((tool) => tool.name === name)) {
    throw invalidRequest(`'tool_choice.function.name' names '${name}', which is not in 'tools'`, 'tool_choice.function.name');
  }
  return { type: 'tool', name };
}
