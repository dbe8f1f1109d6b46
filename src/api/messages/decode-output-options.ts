import type { ReasoningOptions, ResponseFormat } from '../../core/text-request.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { isAbsent, readEnum, readInteger, readObject, readString, rejectUnknownKeys } from '../shared/read-json-fields.js';

/**
 * `thinking`: `enabled` with a token budget, `adaptive` (the model decides how much to think),
 * or `disabled`. Returns the reasoning options, or undefined when thinking is off.
 * An adaptive request yields `{}`: reasoning on, at the provider's default depth.
 */
export function decodeThinking(value: unknown): ReasoningOptions | undefined {
  const thinking = readObject(value, 'thinking');
  switch (thinking.type) {
    case 'disabled':
      rejectUnknownKeys(thinking, new Set(['type']), 'thinking');
      return undefined;
    case 'enabled':
      rejectUnknownKeys(thinking, new Set(['type', 'budget_tokens', 'display']), 'thinking');
      checkDisplay(thinking.display);
      return { maxTokens: readInteger(thinking.budget_tokens, 'thinking.budget_tokens', 1) };
    case 'adaptive':
      rejectUnknownKeys(thinking, new Set(['type', 'display']), 'thinking');
      checkDisplay(thinking.display);
      return {};
    default:
      throw invalidRequest("'thinking.type' must be one of enabled, adaptive, disabled", 'thinking.type');
  }
}

/** Only the default display (`summarized`) can be honoured: other providers cannot omit thinking text. */
function checkDisplay(value: unknown): void {
  if (!isAbsent(value) && value !== 'summarized') throw unsupportedParameter('thinking.display', `value '${String(value)}' is not supported (only 'summarized')`);
}

export interface DecodedOutputConfig {
  effort?: ReasoningOptions['effort'];
  responseFormat?: ResponseFormat;
}

/**
 * `output_config`: `effort` maps onto reasoning effort (`xhigh` and `max` exist only on some
 * Claude models); `format` is a JSON schema the answer must follow. Anthropic's format has no
 * name, and OpenAI's requires one, so it is called `response`.
 */
export function decodeOutputConfig(value: unknown): DecodedOutputConfig {
  const config = readObject(value, 'output_config');
  rejectUnknownKeys(config, new Set(['effort', 'format']), 'output_config');
  const decoded: DecodedOutputConfig = {};
  if (!isAbsent(config.effort)) decoded.effort = readEnum(config.effort, 'output_config.effort', ['low', 'medium', 'high'] as const);
  if (!isAbsent(config.format)) {
    const format = readObject(config.format, 'output_config.format');
    rejectUnknownKeys(format, new Set(['type', 'schema']), 'output_config.format');
    readEnum(format.type, 'output_config.format.type', ['json_schema']);
    decoded.responseFormat = { type: 'json_schema', name: 'response', schema: readObject(format.schema, 'output_config.format.schema') };
  }
  return decoded;
}

/** `metadata.user_id`: the caller's end-user id. */
export function decodeMetadataUser(value: unknown): string | undefined {
  const metadata = readObject(value, 'metadata');
  rejectUnknownKeys(metadata, new Set(['user_id']), 'metadata');
  return isAbsent(metadata.user_id) ? undefined : readString(metadata.user_id, 'metadata.user_id');
}
