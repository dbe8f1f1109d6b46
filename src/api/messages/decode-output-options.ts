import type { ReasoningOptions, ResponseFormat } from '../../core/text-request.js';
import { invalidRequest } from '../../errors/gateway-error.js';
import { isAbsent, readEnum, readInteger, readObject, readString, rejectUnknownKeys, type JsonObject } from '../shared/read-json-fields.js';

export interface DecodedThinking {
  /** The reasoning asked for; undefined when thinking is off (`disabled`, `between_tools`). */
  reasoning?: ReasoningOptions;
  /** `disabled`: thinking off, said so to Anthropic. */
  disabled?: true;
  /** `between_tools`: thinking off, with Claude's progress notes between tool calls as thinking blocks. */
  betweenTools?: true;
  /** `block_binding` as sent (enabled and adaptive thinking), for Anthropic. */
  blockBinding?: JsonObject;
}

/**
 * `thinking`: `enabled` with a token budget, `adaptive` (the model decides how much to think),
 * `disabled`, or `between_tools` (thinking off; the short progress notes Claude writes between
 * tool calls come back as thinking blocks). An adaptive request yields reasoning `{}`: on, at the
 * provider's default depth. `between_tools` asks for no reasoning, so other protocols get
 * thinking off, as Anthropic's SDK itself sends it to a fallback model that lacks it (as
 * `disabled`). `block_binding` (what Anthropic does with a sent-back thinking block that fails
 * its conversation check) is only for Anthropic: no other protocol receives Claude's thinking blocks.
 */
export function decodeThinking(value: unknown): DecodedThinking {
  const thinking = readObject(value, 'thinking');
  switch (thinking.type) {
    case 'disabled':
      rejectUnknownKeys(thinking, new Set(['type']), 'thinking');
      return { disabled: true };
    case 'between_tools':
      rejectUnknownKeys(thinking, new Set(['type']), 'thinking');
      return { betweenTools: true };
    case 'enabled': {
      rejectUnknownKeys(thinking, new Set(['type', 'budget_tokens', 'display', 'block_binding']), 'thinking');
      const budget = readInteger(thinking.budget_tokens, 'thinking.budget_tokens', 1);
      // The effort says the same for providers that take no budget (OpenAI's reasoning_effort).
      const reasoning: ReasoningOptions = { maxTokens: budget, effort: budget <= 2048 ? 'low' : budget <= 8192 ? 'medium' : 'high', ...readDisplay(thinking.display) };
      return { reasoning, ...readBlockBinding(thinking.block_binding) };
    }
    case 'adaptive':
      rejectUnknownKeys(thinking, new Set(['type', 'display', 'block_binding']), 'thinking');
      return { reasoning: { adaptive: true, ...readDisplay(thinking.display) }, ...readBlockBinding(thinking.block_binding) };
    default:
      throw invalidRequest("'thinking.type' must be one of enabled, adaptive, disabled, between_tools", 'thinking.type');
  }
}

/** `thinking.block_binding`: `{prefix_mismatch_behavior?: "error" | "drop_block"}`; null means Anthropic's defaults. */
function readBlockBinding(value: unknown): Pick<DecodedThinking, 'blockBinding'> {
  if (isAbsent(value)) return {};
  const binding = readObject(value, 'thinking.block_binding');
  rejectUnknownKeys(binding, new Set(['prefix_mismatch_behavior']), 'thinking.block_binding');
  if (!isAbsent(binding.prefix_mismatch_behavior)) {
    readEnum(binding.prefix_mismatch_behavior, 'thinking.block_binding.prefix_mismatch_behavior', ['error', 'drop_block'] as const);
  }
  return { blockBinding: binding };
}

/** Every `thinking.display` the SDK's beta types allow (`test/fields/messages-field-table.test.ts` fails on one missing here). */
const displays = ['summarized', 'omitted', 'updates'] as const satisfies ReadonlyArray<NonNullable<ReasoningOptions['display']>>;

/**
 * `thinking.display`: `summarized`, `omitted` (thinking happens, its text is not returned) or
 * `updates` (short progress updates in place of the summary, a beta of Anthropic's); the default
 * depends on the model.
 */
function readDisplay(value: unknown): Pick<ReasoningOptions, 'display'> {
  return isAbsent(value) ? {} : { display: readEnum(value, 'thinking.display', displays) };
}

export interface DecodedOutputConfig {
  /** The effort for other protocols: `xhigh` and `max` are `high` there. */
  effort?: ReasoningOptions['effort'];
  /** The effort as sent, for Anthropic (where it is `output_config.effort`, not a thinking budget). */
  anthropicEffort?: 'low' | 'medium' | 'high' | 'xhigh' | 'max';
  responseFormat?: ResponseFormat;
  /** `task_budget` as sent, for Anthropic: an advisory budget other providers have no use for. */
  taskBudget?: JsonObject;
}

/**
 * `output_config`: `effort` maps onto reasoning effort (`xhigh` and `max` exist only on some
 * Claude models); `format` is a JSON schema the answer must follow. Anthropic's format has no
 * name, and OpenAI's requires one, so it is called `response`. `task_budget` (task budgets beta)
 * tells Claude how many tokens a whole agentic loop may take, a countdown it paces itself by and
 * that Anthropic documents as advisory, not a cap: forwarded to Anthropic, a hint elsewhere.
 */
export function decodeOutputConfig(value: unknown): DecodedOutputConfig {
  const config = readObject(value, 'output_config');
  rejectUnknownKeys(config, new Set(['effort', 'format', 'task_budget']), 'output_config');
  const decoded: DecodedOutputConfig = {};
  if (!isAbsent(config.effort)) {
    const effort = readEnum(config.effort, 'output_config.effort', ['low', 'medium', 'high', 'xhigh', 'max'] as const);
    decoded.anthropicEffort = effort;
    // xhigh and max exist only on some Claude models; elsewhere they are the highest effort there is.
    decoded.effort = effort === 'xhigh' || effort === 'max' ? 'high' : effort;
  }
  if (!isAbsent(config.format)) decoded.responseFormat = decodeOutputFormat(config.format, 'output_config.format');
  if (!isAbsent(config.task_budget)) decoded.taskBudget = decodeTaskBudget(config.task_budget);
  return decoded;
}

/** `{type: "tokens", total, remaining?}` (`BetaTokenTaskBudget`). */
function decodeTaskBudget(value: unknown): JsonObject {
  const budget = readObject(value, 'output_config.task_budget');
  rejectUnknownKeys(budget, new Set(['type', 'total', 'remaining']), 'output_config.task_budget');
  readEnum(budget.type, 'output_config.task_budget.type', ['tokens'] as const);
  readInteger(budget.total, 'output_config.task_budget.total', 1);
  if (!isAbsent(budget.remaining)) readInteger(budget.remaining, 'output_config.task_budget.remaining', 0);
  return budget;
}

/** A JSON schema the answer must follow (`output_config.format`, or the beta's `output_format`). */
export function decodeOutputFormat(value: unknown, field: string): ResponseFormat {
  const format = readObject(value, field);
  rejectUnknownKeys(format, new Set(['type', 'schema']), field);
  readEnum(format.type, `${field}.type`, ['json_schema']);
  return { type: 'json_schema', name: 'response', schema: readObject(format.schema, `${field}.schema`) };
}

/** `metadata.user_id`: the caller's end-user id. */
export function decodeMetadataUser(value: unknown): string | undefined {
  const metadata = readObject(value, 'metadata');
  rejectUnknownKeys(metadata, new Set(['user_id']), 'metadata');
  return isAbsent(metadata.user_id) ? undefined : readString(metadata.user_id, 'metadata.user_id');
}
