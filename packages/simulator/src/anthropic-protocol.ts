import type { AnthropicContentBlock, AnthropicMessage, AnthropicStopReason, AnthropicUsage } from './anthropic-wire-types.js';
import type { PlannedFinish, PlannedReply } from './plan-reply.js';
import {
  asArray,
  asRecord,
  groupPieces,
  optionalNumber,
  pickStatusRow,
  readStopSequences,
  requestIdFor,
  requireString,
  SimulatorRequestError,
  stringifyContent,
  type ErrorDetails,
  type ProtocolAdapter,
  type ResponseContext,
  type SimulatedMessage,
  type SimulatedRequest,
  type SimulatedToolChoice,
  type StreamEvent,
} from './protocol-adapter.js';

/**
 * Anthropic Messages, https://docs.anthropic.com/en/api/messages and
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming.
 * Base URL for SDKs: `${simulator.url}/anthropic`.
 */
export const anthropicProtocol: ProtocolAdapter = {
  protocol: 'anthropic',
  requestIdHeader: 'request-id',
  // Anthropic takes the key as x-api-key; newer SDKs send it as a bearer token instead.
  isAuthorized: (headers, _query, apiKey) => headers['x-api-key'] === apiKey || headers.authorization === `Bearer ${apiKey}`,
  encodeAuthError: (details) => encodeError(401, { ...details, message: 'invalid x-api-key' }),
  encodeError,
  decodeRequest,
  encodeResponse,
  encodeStream(request, reply, context) {
    const errorEvent = { event: 'error', data: JSON.stringify(errorBody(529, { sequence: context.sequence })), tokens: 0 };
    return { framing: 'sse', events: encodeStreamEvents(request, reply, context), errorEvent };
  },
};

const ERROR_TYPES: Record<number, [type: string, message: string]> = {
  400: ['invalid_request_error', 'Invalid request.'],
  401: ['authentication_error', 'invalid x-api-key'],
  402: ['billing_error', 'Your credit balance is too low to access the Anthropic API.'],
  403: ['permission_error', 'Your API key does not have permission to use the specified resource.'],
  404: ['not_found_error', 'The requested resource could not be found.'],
  413: ['request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
  429: ['rate_limit_error', 'Number of requests has exceeded your rate limit.'],
  500: ['api_error', 'Internal server error'],
  504: ['timeout_error', 'Request timed out'],
  529: ['overloaded_error', 'Overloaded'],
};

function errorBody(status: number, details: ErrorDetails): Record<string, unknown> {
  const [type, message] = pickStatusRow(ERROR_TYPES, status);
  return { type: 'error', error: { type, message: details.message ?? message }, request_id: requestIdFor(details.sequence) };
}

function encodeError(status: number, details: ErrorDetails) {
  return { status, body: errorBody(status, details) };
}

function decodeRequest(body: unknown): SimulatedRequest {
  const record = asRecord(body);
  const model = requireString(record.model, 'model');
  if (record.max_tokens === undefined) throw new SimulatorRequestError('max_tokens: Field required');
  const rawMessages = asArray(record.messages);
  if (rawMessages.length === 0) throw new SimulatorRequestError('messages: Field required');
  if (record.temperature !== undefined && record.top_p !== undefined && takesOneSampler(model)) {
    throw new SimulatorRequestError('temperature and top_p cannot both be specified for this model. Please use only one.');
  }
  const systemText = typeof record.system === 'string' ? record.system : blockTexts(record.system).join(' ');
  const messages: SimulatedMessage[] = systemText === '' ? [] : [{ role: 'system', text: systemText }];
  for (const raw of rawMessages) messages.push(decodeMessage(asRecord(raw)));
  const toolChoice = asRecord(record.tool_choice);
  return {
    protocol: 'anthropic',
    model,
    stream: record.stream === true,
    messages,
    // Server tools (web search, code execution…) have no input_schema; the model never calls them here.
    tools: asArray(record.tools).flatMap((tool) => {
      const { name, input_schema: parameters } = asRecord(tool);
      return typeof name === 'string' && parameters !== undefined ? [{ name, parameters }] : [];
    }),
    toolChoice: decodeToolChoice(toolChoice),
    parallelToolCalls: toolChoice.disable_parallel_tool_use !== true,
    maxTokens: optionalNumber(record.max_tokens, 'max_tokens'),
    stopSequences: readStopSequences(record.stop_sequences),
    outputSchema: asRecord(asRecord(record.output_config).format).schema,
    includeStreamUsage: true,
  };
}

/**
 * Anthropic refuses `temperature` with `top_p` from Claude Opus 4.1 and the 4.5 generation on
 * ("Use only temperature OR top_p, not both",
 * https://platform.claude.com/docs/en/about-claude/models/migrating-to-claude-4); earlier models
 * take both. Read from the model id's generation (`claude-<name>-<major>[-<minor>]`, a date after it).
 */
function takesOneSampler(model: string): boolean {
  const match = /claude-([a-z]+)-(\d+)(?:-(\d{1,2}))?(?!\d)/.exec(model);
  if (!match) return false;
  const [, name, major, minor] = match;
  const version = Number(major) + Number(minor ?? 0) / 10;
  return version >= 4.5 || (name === 'opus' && version >= 4.1);
}

function decodeMessage(message: Record<string, unknown>): SimulatedMessage {
  // Claude Code puts `role: "system"` entries between turns; they are instructions, not the turn to answer.
  const role = message.role === 'assistant' ? 'assistant' : message.role === 'system' ? 'system' : 'user';
  if (typeof message.content === 'string') return { role, text: message.content };
  const blocks = asArray(message.content).map(asRecord);
  const isToolResult = blocks.some((block) => block.type === 'tool_result');
  return { role: isToolResult ? 'tool' : role, text: blockTexts(blocks).join(' ') };
}

function blockTexts(value: unknown): string[] {
  return asArray(value).flatMap((raw) => {
    const block = asRecord(raw);
    if (typeof block.text === 'string') return [block.text];
    if (typeof block.thinking === 'string') return [block.thinking];
    if (block.type === 'tool_use') return [`${stringifyContent(block.name)} ${stringifyContent(block.input)}`];
    if (block.type === 'tool_result') return typeof block.content === 'string' ? [block.content] : blockTexts(block.content);
    return [];
  });
}

function decodeToolChoice(choice: Record<string, unknown>): SimulatedToolChoice {
  if (choice.type === 'none') return { type: 'none' };
  if (choice.type === 'tool' && typeof choice.name === 'string') return { type: 'tool', name: choice.name };
  return { type: 'auto' };
}

const STOP_REASONS: Record<PlannedFinish, AnthropicStopReason> = {
  stop: 'end_turn',
  stop_sequence: 'stop_sequence',
  length: 'max_tokens',
  tool_calls: 'tool_use',
};

function encodeUsage(reply: PlannedReply, outputTokens: number): AnthropicUsage {
  return {
    input_tokens: reply.promptTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

const toolUseId = (context: ResponseContext, index: number) => `toolu_sim${context.sequence}_${index}`;

function encodeResponse(request: SimulatedRequest, reply: PlannedReply, context: ResponseContext): AnthropicMessage {
  const content: AnthropicContentBlock[] =
    reply.toolCalls.length > 0
      ? reply.toolCalls.map((call, index) => ({ type: 'tool_use', id: toolUseId(context, index), name: call.name, input: call.input }))
      : reply.text === ''
        ? []
        : [{ type: 'text', text: reply.text }];
  return {
    id: `msg_sim${context.sequence}`,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content,
    stop_reason: STOP_REASONS[reply.finish],
    stop_sequence: reply.stopSequence ?? null,
    ...(context.includeUsage && { usage: encodeUsage(reply, reply.completionTokens) }),
  };
}

function encodeStreamEvents(request: SimulatedRequest, reply: PlannedReply, context: ResponseContext): StreamEvent[] {
  const event = (payload: Record<string, unknown>, tokens = 0): StreamEvent => ({
    event: payload.type as string,
    data: JSON.stringify(payload),
    tokens,
  });
  const message: AnthropicMessage = {
    id: `msg_sim${context.sequence}`,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
  };
  // message_start reports a provisional output count; the real total arrives in message_delta.
  const events = [event({ type: 'message_start', message: context.includeUsage ? { ...message, usage: encodeUsage(reply, 1) } : message })];
  if (reply.toolCalls.length === 0) {
    events.push(event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }), event({ type: 'ping' }));
    for (const group of groupPieces(reply.pieces, context)) {
      events.push(event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: group.text } }, group.tokens));
    }
    events.push(event({ type: 'content_block_stop', index: 0 }));
  }
  reply.toolCalls.forEach((call, index) => {
    const block = { type: 'tool_use', id: toolUseId(context, index), name: call.name, input: {} };
    events.push(event({ type: 'content_block_start', index, content_block: block }));
    if (index === 0) events.push(event({ type: 'ping' }));
    for (const fragment of call.fragments) {
      events.push(event({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: fragment } }, 1));
    }
    events.push(event({ type: 'content_block_stop', index }));
  });
  const delta = { stop_reason: STOP_REASONS[reply.finish], stop_sequence: reply.stopSequence ?? null };
  const usage: AnthropicUsage = {
    input_tokens: reply.promptTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: reply.completionTokens,
  };
  events.push(event({ type: 'message_delta', delta, ...(context.includeUsage && { usage }) }), event({ type: 'message_stop' }));
  return events;
}
