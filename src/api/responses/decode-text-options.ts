import type { ReasoningOptions, ResponseFormat } from '../../core/text-request.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import type { ReasoningWire, TextFormatWire } from './responses-wire.js';
import { isAbsent, isJsonObject, readBoolean, readEnum, readObject, rejectUnknownKeys } from '../shared/read-json-fields.js';
import { expectString } from './validate-shape.js';

// `verbosity` is a hint: OpenAI's own models read it, others answer as they would.
const textKeys = new Set(['format', 'verbosity']);
const jsonSchemaKeys = new Set(['type', 'name', 'schema', 'strict', 'description']);
const reasoningKeys = new Set(['effort', 'summary', 'generate_summary', 'context', 'mode']);

export interface DecodedTextFormat {
  /** Undefined for `{type: 'text'}`: plain text is every model's default, not a constraint to route on. */
  responseFormat?: ResponseFormat;
  echo: TextFormatWire;
}

/** `text: {format}` — the Responses API's place for what Chat Completions calls `response_format`. */
export function decodeTextFormat(value: unknown): DecodedTextFormat {
  const text = readObject(value, 'text');
  rejectUnknownKeys(text, textKeys, 'text');
  if (!isAbsent(text.verbosity)) readEnum(text.verbosity, 'text.verbosity', ['low', 'medium', 'high'] as const);
  if (isAbsent(text.format)) return { echo: { type: 'text' } };
  const format = readObject(text.format, 'text.format');
  const type = readEnum(format.type, 'text.format.type', ['text', 'json_object', 'json_schema'] as const);
  if (type !== 'json_schema') {
    rejectUnknownKeys(format, new Set(['type']), 'text.format');
    return type === 'text' ? { echo: { type } } : { responseFormat: { type }, echo: { type } };
  }
  rejectUnknownKeys(format, jsonSchemaKeys, 'text.format');
  const name = expectString(format.name, 'text.format.name');
  if (!isJsonObject(format.schema)) throw invalidRequest("'text.format.schema' must be a JSON Schema object", 'text.format.schema');
  const description = isAbsent(format.description) ? undefined : expectString(format.description, 'text.format.description');
  const strict = isAbsent(format.strict) ? undefined : readBoolean(format.strict, 'text.format.strict');
  const optional = { ...(description === undefined ? {} : { description }), ...(strict === undefined ? {} : { strict }) };
  return {
    responseFormat: { type, name, schema: format.schema, ...optional },
    echo: { type, name, schema: format.schema, ...(description === undefined ? {} : { description }), strict: strict ?? null },
  };
}

export interface DecodedReasoning {
  reasoning: ReasoningOptions;
  echo: ReasoningWire;
}

/**
 * `summary` only shapes how the reasoning is shown; canonical reasoning has no such knob, and the
 * gateway always reports the reasoning it receives as a summary item.
 *
 * `context` says which earlier reasoning items the model re-reads on later turns (`auto`, the
 * default, lets the model decide): a hint, since it changes what the model re-reads, never the
 * form of the answer. Chat Completions takes no reasoning back at all, Claude decides itself which
 * earlier thinking blocks it keeps in context, and Gemini re-reads only thought signatures.
 *
 * `mode` picks OpenAI's execution mode: `standard` (what every model does) is accepted; `pro`
 * runs only in OpenAI's own Responses API, which no provider protocol here speaks, and running
 * the request the standard way instead would not be what was paid for: refused with why.
 */
export function decodeReasoning(value: unknown): DecodedReasoning {
  const input = readObject(value, 'reasoning');
  rejectUnknownKeys(input, reasoningKeys, 'reasoning');
  if (!isAbsent(input.context)) readEnum(input.context, 'reasoning.context', ['auto', 'current_turn', 'all_turns'] as const);
  if (!isAbsent(input.mode)) checkReasoningMode(input.mode);
  const reasoning: ReasoningOptions = {};
  // `none` asks for no reasoning: the neutral value, echoed and never a requirement.
  const none = input.effort === 'none';
  if (!isAbsent(input.effort) && !none) {
    if (typeof input.effort === 'string' && ['xhigh', 'max'].includes(input.effort)) {
      throw unsupportedParameter('reasoning.effort', `value '${input.effort}' is not supported; use none, minimal, low, medium or high`);
    }
    reasoning.effort = readEnum(input.effort, 'reasoning.effort', ['minimal', 'low', 'medium', 'high'] as const);
  }
  // `generate_summary` is the deprecated spelling of `summary`.
  const summaryValue = input.summary ?? input.generate_summary;
  const summaryPath = isAbsent(input.summary) ? 'reasoning.generate_summary' : 'reasoning.summary';
  const summary = isAbsent(summaryValue) ? null : readEnum(summaryValue, summaryPath, ['auto', 'concise', 'detailed'] as const);
  return { reasoning, echo: { effort: none ? 'none' : (reasoning.effort ?? null), summary } };
}

function checkReasoningMode(mode: unknown): void {
  const value = expectString(mode, 'reasoning.mode');
  if (value === 'standard') return;
  if (value === 'pro') {
    throw unsupportedParameter(
      'reasoning.mode',
      "value 'pro' is not supported: OpenAI’s pro execution mode runs only in OpenAI’s Responses API, and this gateway reaches providers through Chat Completions, Anthropic Messages or Gemini, none of which has it; leave mode out or send 'standard' (reasoning.effort 'high' asks for the most reasoning)",
    );
  }
  throw unsupportedParameter('reasoning.mode', `value '${value}' is not supported; 'standard' is the only execution mode, leave mode out or send 'standard'`);
}
