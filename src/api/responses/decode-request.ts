import type { Message } from '../../core/content.js';
import type { TextRequest } from '../../core/text-request.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { decodeRouteRequest } from '../shared/decode-route-request.js';
import { webSearchDomainFilter, type DecodedTextCall, type OfferedHostedTool, type RequestedParameter } from '../shared/text-call.js';
import { decodeInputItems } from './decode-input-items.js';
import { decodeReasoning, decodeTextFormat } from './decode-text-options.js';
import { decodeToolChoice, decodeTools } from './decode-tools.js';
import { createDefaultEcho, type ResponsesEcho } from './responses-echo.js';
import { refuseStatefulFields } from './refuse-stateful-fields.js';
import { checkResponsesHints } from './check-hints.js';
import { responsesFieldTable } from './field-table.js';
import { topLevelFields } from '../shared/field-table.js';
import { isAbsent, readBoolean, readEnum, readNumber, readObject } from '../shared/read-json-fields.js';
import { expectPositiveInteger, expectString } from './validate-shape.js';

/** The style's fields: those with a row in the field table (routing fields included). */
const knownFields = topLevelFields(responsesFieldTable);

/**
 * Decodes a `POST /responses` body (OpenAI's Responses API) into the canonical text call, plus
 * the fields the Response object repeats. Anything we cannot honour is a 400 naming the field.
 * Reference: https://platform.openai.com/docs/api-reference/responses/create
 */
export function decodeResponsesRequest(body: Record<string, unknown>): { call: DecodedTextCall; echo: ResponsesEcho } {
  for (const key of Object.keys(body)) {
    if (!knownFields.has(key)) throw unsupportedParameter(key);
  }
  refuseStatefulFields(body);
  checkResponsesHints(body);
  const route = decodeRouteRequest(body);
  const echo = createDefaultEcho();
  // OpenAI's default: a response is stored unless the client says `store: false`.
  echo.store = body.store !== false;
  const parameters: RequestedParameter[] = [];
  const offeredTools: OfferedHostedTool[] = [];
  const request: TextRequest = { messages: decodeMessages(body, echo), stream: isAbsent(body.stream) ? false : readBoolean(body.stream, 'stream') };

  if (!isAbsent(body.tools)) {
    const decoded = decodeTools(body.tools);
    echo.tools = decoded.echo;
    if (decoded.namespaces.size > 0) echo.toolNamespaces = decoded.namespaces;
    if (decoded.webSearch) {
      // Offered, never forced (a forced hosted tool is refused with tool_choice): a preference.
      request.webSearch = decoded.webSearch;
      parameters.push({ name: 'web_search', field: 'tools[type=web_search]', preference: true });
      if (decoded.domainFilter) parameters.push({ ...webSearchDomainFilter(decoded.domainFilter), preference: true });
    }
    if (decoded.offered.length > 0) offeredTools.push(...decoded.offered);
    if (decoded.tools.length > 0) {
      request.tools = decoded.tools;
      parameters.push({ name: 'tools', field: 'tools' });
    }
  }
  if (!isAbsent(body.tool_choice)) {
    const decoded = decodeToolChoice(body.tool_choice, request.tools ?? []);
    request.toolChoice = decoded.toolChoice;
    echo.tool_choice = decoded.echo;
    parameters.push({ name: 'tool_choice', field: 'tool_choice' });
  }
  // A hint (contract §4): honoured where the protocol has the switch, never a reason to refuse a route.
  if (!isAbsent(body.parallel_tool_calls)) {
    request.parallelToolCalls = echo.parallel_tool_calls = readBoolean(body.parallel_tool_calls, 'parallel_tool_calls');
  }
  if (!isAbsent(body.max_output_tokens)) {
    request.maxTokens = echo.max_output_tokens = expectPositiveInteger(body.max_output_tokens, 'max_output_tokens');
    parameters.push({ name: 'max_tokens', field: 'max_output_tokens' });
  }
  if (!isAbsent(body.temperature)) {
    request.temperature = echo.temperature = readNumber(body.temperature, 'temperature', 0, 2);
    parameters.push({ name: 'temperature', field: 'temperature' });
  }
  if (!isAbsent(body.top_p)) {
    request.topP = echo.top_p = readNumber(body.top_p, 'top_p', 0, 1);
    parameters.push({ name: 'top_p', field: 'top_p' });
  }
  if (!isAbsent(body.text)) {
    const decoded = decodeTextFormat(body.text);
    echo.text = { format: decoded.echo };
    if (decoded.responseFormat) {
      request.responseFormat = decoded.responseFormat;
      parameters.push({ name: 'response_format', field: 'text.format' });
    }
  }
  if (!isAbsent(body.reasoning)) {
    const decoded = decodeReasoning(body.reasoning);
    echo.reasoning = decoded.echo;
    // `summary` alone is a hint (how reasoning is shown); only an effort asks the model to reason.
    if (decoded.reasoning.effort !== undefined) {
      request.reasoning = decoded.reasoning;
      // A preference: served by a model that reasons when there is one, without it where not.
      parameters.push({ name: 'reasoning', field: 'reasoning.effort', preference: true });
    }
  }
  if (!isAbsent(body.user)) {
    // A hint: forwarded where the protocol has a field for it, never a reason to refuse a route.
    request.user = echo.user = expectString(body.user, 'user');
  }
  // The request log's end user: OpenAI's newer `safety_identifier` (shape checked above) wins.
  if (!isAbsent(body.safety_identifier)) echo.safety_identifier = body.safety_identifier as string;
  const endUser = echo.safety_identifier ?? request.user;
  if (endUser !== undefined) request.endUser = endUser;
  if (!isAbsent(body.metadata)) echo.metadata = decodeMetadata(body.metadata);
  if (!isAbsent(body.prompt_cache_key)) request.promptCacheKey = echo.prompt_cache_key = expectString(body.prompt_cache_key, 'prompt_cache_key');
  if (!isAbsent(body.truncation) && readEnum(body.truncation, 'truncation', ['auto', 'disabled'] as const) === 'auto') {
    request.truncation = echo.truncation = 'auto';
  }
  return { call: { route, request, parameters, ...(offeredTools.length > 0 && { offeredTools }) }, echo };
}

/** `instructions` becomes the first system message, ahead of any system items in `input`. */
function decodeMessages(body: Record<string, unknown>, echo: ResponsesEcho): Message[] {
  const messages = decodeInputItems(body.input);
  if (isAbsent(body.instructions)) return messages;
  echo.instructions = expectString(body.instructions, 'instructions');
  return [{ role: 'system', content: echo.instructions }, ...messages];
}

/** OpenAI's limits: at most 16 pairs, keys up to 64 characters, string values up to 512. */
function decodeMetadata(value: unknown): Record<string, string> {
  const metadata = readObject(value, 'metadata');
  const entries = Object.entries(metadata);
  if (entries.length > 16) throw invalidRequest("'metadata' may hold at most 16 pairs", 'metadata');
  for (const [key, entry] of entries) {
    if (key.length > 64) throw invalidRequest(`'metadata' key '${key.slice(0, 20)}…' is longer than 64 characters`, 'metadata');
    if (typeof entry !== 'string' || entry.length > 512) {
      throw invalidRequest(`'metadata.${key}' must be a string of at most 512 characters`, `metadata.${key}`);
    }
  }
  return metadata as Record<string, string>;
}
