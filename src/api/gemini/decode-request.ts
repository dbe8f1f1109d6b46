import type { CanonicalParameter, TextRequest } from '../../core/text-request.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { decodeRouteRequest } from '../shared/decode-route-request.js';
import { topLevelFields } from '../shared/field-table.js';
import { isAbsent, readString } from '../shared/read-json-fields.js';
import type { DecodedTextCall, RequestedParameter } from '../shared/text-call.js';
import { decodeContents, decodeSystemInstruction } from './decode-contents.js';
import { decodeGenerationConfig } from './decode-generation-config.js';
import { decodeToolConfig, decodeTools, onlyAllowedTools } from './decode-tools.js';
import { geminiFieldTable } from './field-table.js';
import { readCamelCase } from '../../wire/gemini/read-camel-case.js';

const acceptedFields = topLevelFields(geminiFieldTable);

/** Refused top-level fields, with why (the field table's note). */
const refused = new Map(geminiFieldTable.filter((row) => !row.field.includes('.') && row.handling.gemini.kind === 'refused').map((row) => [row.field, row.handling.gemini.note ?? '']));

/**
 * Decodes a `generateContent` body into the canonical call. The model is the URL's (`models/{model}`,
 * or a `model` in the body, which the REST API accepts too, without its `models/` prefix);
 * `stream` is the action (`:streamGenerateContent`). Fields are read in either of Google's
 * spellings (`readCamelCase`).
 */
export function decodeGeminiRequest(input: Record<string, unknown>, model: string, stream: boolean): DecodedTextCall {
  const body = readCamelCase(input);
  for (const field of Object.keys(body)) {
    if (!acceptedFields.has(field)) throw unsupportedParameter(field);
    const why = refused.get(field);
    if (why !== undefined && !isAbsent(body[field])) throw unsupportedParameter(field, `is not supported: ${why}`);
  }
  const bodyModel = isAbsent(body.model) ? undefined : readString(body.model, 'model').replace(/^models\//, '');
  if (bodyModel !== undefined && bodyModel !== model) throw invalidRequest(`'model' (${bodyModel}) differs from the model of the URL (${model})`, 'model');
  const route = decodeRouteRequest({ model, models: body.models, provider: body.provider });
  const system = isAbsent(body.systemInstruction) ? [] : decodeSystemInstruction(body.systemInstruction);
  const request: TextRequest = { messages: [...system, ...decodeContents(body.contents)], stream };
  const parameters: RequestedParameter[] = [];
  const record = (field: string, name: CanonicalParameter) => parameters.push({ name, field });

  if (!isAbsent(body.tools)) {
    const { tools, webSearch } = decodeTools(body.tools);
    if (tools.length > 0) {
      request.tools = tools;
      record('tools', 'tools');
    }
    if (webSearch) {
      request.webSearch = webSearch;
      // Offered, never forced (a calling mode names function declarations only): a preference.
      parameters.push({ name: 'web_search', field: 'tools[].googleSearch', preference: true });
    }
  }
  if (!isAbsent(body.toolConfig)) {
    const { toolChoice, allowedNames } = decodeToolConfig(body.toolConfig);
    if (toolChoice !== undefined && request.tools) {
      if (allowedNames) request.tools = onlyAllowedTools(request.tools, allowedNames);
      if (typeof toolChoice === 'object') onlyAllowedTools(request.tools, [toolChoice.name]);
      request.toolChoice = toolChoice;
      record('toolConfig', 'tool_choice');
    }
  }
  if (!isAbsent(body.generationConfig)) decodeGenerationConfig(body.generationConfig, request, record, (field, name) => parameters.push({ name, field, preference: true }));
  return { route, request, parameters };
}
