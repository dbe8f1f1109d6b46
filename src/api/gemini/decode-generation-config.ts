import type { CanonicalParameter, ReasoningOptions, ResponseFormat, TextRequest } from '../../core/text-request.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { geminiFieldTable } from './field-table.js';
import { isAbsent, readBoolean, readEnum, readInteger, readNumber, readObject, readString, readStringList, rejectUnknownKeys, type JsonObject } from '../shared/read-json-fields.js';
import { convertOpenApiSchema } from './convert-openapi-schema.js';

const prefix = 'generationConfig.';
const configFields = new Set(geminiFieldTable.filter((row) => row.field.startsWith(prefix) && !row.field.slice(prefix.length).includes('.')).map((row) => row.field.slice(prefix.length)));

/** Fields the gateway cannot honour: refused by name when set to anything but their neutral value. */
const refusedUnlessNeutral: Record<string, { neutral: (value: unknown) => boolean; why: string }> = {
  candidateCount: { neutral: (value) => value === 1, why: 'the gateway returns one candidate per request; send 1 or leave it out' },
  responseLogprobs: { neutral: (value) => value === false, why: 'log probabilities are not returned by the gateway' },
  logprobs: { neutral: () => false, why: 'log probabilities are not returned by the gateway' },
  responseModalities: { neutral: (value) => Array.isArray(value) && value.every((modality) => modality === 'TEXT'), why: 'text models answer in text: image output is POST /v1/images/generations, speech POST /v1/audio/speech' },
  responseFormat: { neutral: () => false, why: 'send responseMimeType and responseJsonSchema' },
  speechConfig: { neutral: () => false, why: 'speech output is POST /v1/audio/speech' },
  audioTranscriptionConfig: { neutral: () => false, why: 'text models answer in text' },
  audioTimestamp: { neutral: (value) => value === false, why: 'the gateway’s text styles take no audio input' },
  imageConfig: { neutral: () => false, why: 'image output is POST /v1/images/generations' },
  translationConfig: { neutral: () => false, why: 'text models answer in text' },
  routingConfig: { neutral: () => false, why: 'the gateway routes by models and provider' },
  modelSelectionConfig: { neutral: () => false, why: 'the gateway routes by models and provider' },
};

/** Hints the field table lists: accepted, and not forwarded when translated. */
const hints = new Set(['mediaResolution', 'enableEnhancedCivicAnswers', 'enableAffectiveDialog']);

/** Thinking budgets of Gemini's thinking levels, for the protocols that take a budget or an effort. */
const effortByLevel: Record<string, NonNullable<ReasoningOptions['effort']>> = { MINIMAL: 'minimal', LOW: 'low', MEDIUM: 'medium', HIGH: 'high' };

/**
 * `generationConfig` → the canonical sampling, output and reasoning options. A parameter the
 * client set is recorded for routing (an endpoint must support it), except what Gemini clients
 * send by default and is a preference (contract §4): `thinkingConfig`, sent where the model reasons,
 * and `topK` (Gemini CLI sends 64; OpenAI has none), sent where the endpoint takes it; elsewhere they
 * are left out and named in `x-switchyard-omitted`.
 */
export function decodeGenerationConfig(
  value: unknown,
  request: TextRequest,
  record: (field: string, name: CanonicalParameter) => void,
  prefer: (field: string, name: CanonicalParameter) => void,
): void {
  const config = readObject(value, 'generationConfig');
  for (const key of Object.keys(config)) {
    const field = `${prefix}${key}`;
    if (!configFields.has(key)) throw unsupportedParameter(field);
    const rule = refusedUnlessNeutral[key];
    if (rule && !isAbsent(config[key]) && !rule.neutral(config[key])) throw unsupportedParameter(field, `is not supported: ${rule.why}`);
  }
  const has = (key: string) => !isAbsent(config[key]) && !refusedUnlessNeutral[key] && !hints.has(key);
  if (has('temperature')) {
    request.temperature = readNumber(config.temperature, `${prefix}temperature`, 0, 2);
    record(`${prefix}temperature`, 'temperature');
  }
  if (has('topP')) {
    request.topP = readNumber(config.topP, `${prefix}topP`, 0, 1);
    record(`${prefix}topP`, 'top_p');
  }
  if (has('topK')) {
    request.topK = readInteger(config.topK, `${prefix}topK`, 1);
    prefer(`${prefix}topK`, 'top_k');
  }
  if (has('maxOutputTokens')) request.maxTokens = readInteger(config.maxOutputTokens, `${prefix}maxOutputTokens`, 1);
  if (has('stopSequences')) {
    const stop = readStringList(config.stopSequences, `${prefix}stopSequences`);
    if (stop.length > 0) {
      request.stop = stop;
      record(`${prefix}stopSequences`, 'stop');
    }
  }
  if (has('presencePenalty')) {
    request.presencePenalty = readNumber(config.presencePenalty, `${prefix}presencePenalty`, -2, 2);
    record(`${prefix}presencePenalty`, 'presence_penalty');
  }
  if (has('frequencyPenalty')) {
    request.frequencyPenalty = readNumber(config.frequencyPenalty, `${prefix}frequencyPenalty`, -2, 2);
    record(`${prefix}frequencyPenalty`, 'frequency_penalty');
  }
  if (has('seed')) {
    request.seed = readInteger(config.seed, `${prefix}seed`, Number.MIN_SAFE_INTEGER);
    record(`${prefix}seed`, 'seed');
  }
  const format = decodeResponseFormat(config);
  if (format) {
    request.responseFormat = format.format;
    record(format.field, 'response_format');
  }
  if (has('thinkingConfig')) {
    const reasoning = decodeThinkingConfig(config.thinkingConfig);
    if (reasoning) {
      request.reasoning = reasoning;
      prefer(`${prefix}thinkingConfig`, 'reasoning');
    }
  }
}

/**
 * `responseMimeType` `application/json` asks for JSON; a schema (`responseJsonSchema`, or the
 * OpenAPI `responseSchema` converted to JSON Schema) holds it to one, and needs that MIME type,
 * as in Gemini's API. `text/plain` is the default; `text/x.enum` has no equivalent elsewhere.
 */
function decodeResponseFormat(config: JsonObject): { format: ResponseFormat; field: string } | undefined {
  const mimeType = isAbsent(config.responseMimeType) ? undefined : readString(config.responseMimeType, `${prefix}responseMimeType`);
  const hasJsonSchema = !isAbsent(config.responseJsonSchema);
  const hasSchema = !isAbsent(config.responseSchema);
  if (hasJsonSchema && hasSchema) throw invalidRequest(`'${prefix}responseSchema' and '${prefix}responseJsonSchema' are exclusive: send one`, `${prefix}responseSchema`);
  if (mimeType !== undefined && mimeType !== 'text/plain' && mimeType !== 'application/json') {
    throw unsupportedParameter(`${prefix}responseMimeType`, `is not supported: '${mimeType}' (the gateway takes text/plain and application/json)`);
  }
  if ((hasJsonSchema || hasSchema) && mimeType !== 'application/json') {
    throw invalidRequest(`'${prefix}${hasSchema ? 'responseSchema' : 'responseJsonSchema'}' needs '${prefix}responseMimeType': 'application/json'`, `${prefix}responseMimeType`);
  }
  if (hasJsonSchema) return { format: { type: 'json_schema', name: 'response', schema: readObject(config.responseJsonSchema, `${prefix}responseJsonSchema`) }, field: `${prefix}responseJsonSchema` };
  if (hasSchema) return { format: { type: 'json_schema', name: 'response', schema: convertOpenApiSchema(readObject(config.responseSchema, `${prefix}responseSchema`)) }, field: `${prefix}responseSchema` };
  if (mimeType === 'application/json') return { format: { type: 'json_object' }, field: `${prefix}responseMimeType` };
  return undefined;
}

/**
 * `thinkingConfig`: a budget (`-1` the model decides, `0` no thinking), or a level; and whether
 * thought summaries come back (`includeThoughts`, off by default as in Gemini's API).
 * https://ai.google.dev/gemini-api/docs/thinking
 */
function decodeThinkingConfig(value: unknown): ReasoningOptions | undefined {
  const path = `${prefix}thinkingConfig`;
  const thinking = readObject(value, path);
  rejectUnknownKeys(thinking, new Set(['includeThoughts', 'thinkingBudget', 'thinkingLevel']), path);
  const display = !isAbsent(thinking.includeThoughts) && readBoolean(thinking.includeThoughts, `${path}.includeThoughts`) ? 'summarized' : 'omitted';
  if (!isAbsent(thinking.thinkingLevel)) {
    const level = readEnum(thinking.thinkingLevel, `${path}.thinkingLevel`, ['THINKING_LEVEL_UNSPECIFIED', 'MINIMAL', 'LOW', 'MEDIUM', 'HIGH']);
    return level === 'THINKING_LEVEL_UNSPECIFIED' ? { adaptive: true, display } : { effort: effortByLevel[level], display };
  }
  if (isAbsent(thinking.thinkingBudget)) return display === 'summarized' ? { adaptive: true, display } : undefined;
  const budget = readInteger(thinking.thinkingBudget, `${path}.thinkingBudget`, -1);
  if (budget === 0) return undefined;
  if (budget === -1) return { adaptive: true, display };
  return { maxTokens: budget, effort: budget <= 2048 ? 'low' : budget <= 8192 ? 'medium' : 'high', display };
}
