import type { PlannedFinish, PlannedReply } from './plan-reply.js';
import {
  asArray,
  asRecord,
  createJsonTemplate,
  groupPieces,
  optionalNumber,
  readStopSequences,
  requireString,
  SimulatorRequestError,
  stringifyContent,
  unixSeconds,
  type ProtocolAdapter,
  type ResponseContext,
  type SimulatedMessage,
  type SimulatedRequest,
  type SimulatedToolChoice,
  type StreamEvent,
} from './protocol-adapter.js';

/**
 * OpenAI Chat Completions, https://platform.openai.com/docs/api-reference/chat.
 * Base URL for SDKs: `${simulator.url}/openai/v1`.
 */
export const openaiProtocol: ProtocolAdapter = {
  protocol: 'openai',
  requestIdHeader: 'x-request-id',
  isAuthorized: (headers, _query, apiKey) => headers.authorization === `Bearer ${apiKey}`,
  encodeAuthError: () => ({ status: 401, body: { error: describeError(401, 'Incorrect API key provided.') } }),
  encodeError: (status, { message }) => ({ status, body: { error: describeError(status, message) } }),
  decodeRequest,
  encodeResponse,
  encodeStream(request, reply, context) {
    // A mid-stream failure arrives as a data event holding an `error` object, without [DONE].
    const errorEvent = { data: JSON.stringify({ error: describeError(500) }), tokens: 0 };
    return { framing: 'sse', events: encodeStreamEvents(request, reply, context), errorEvent };
  },
};

const SERVER_ERROR_MESSAGE = 'The server had an error while processing your request. Sorry about that!';

function describeError(status: number, message?: string): Record<string, unknown> {
  if (status === 429) {
    return { message: message ?? 'Rate limit reached for requests.', type: 'requests', param: null, code: 'rate_limit_exceeded' };
  }
  if (status >= 500) return { message: message ?? SERVER_ERROR_MESSAGE, type: 'server_error', param: null, code: null };
  const code = status === 401 ? 'invalid_api_key' : status === 404 ? 'model_not_found' : null;
  return { message: message ?? `Simulated error with status ${status}.`, type: 'invalid_request_error', param: null, code };
}

function decodeRequest(body: unknown): SimulatedRequest {
  const record = asRecord(body);
  const model = requireString(record.model, 'model');
  const rawMessages = asArray(record.messages);
  if (rawMessages.length === 0) throw new SimulatorRequestError('messages is required');
  const tools = asArray(record.tools).flatMap((raw) => {
    const tool = asRecord(raw);
    const definition = asRecord(tool.function);
    if (tool.type !== 'function' || typeof definition.name !== 'string') return [];
    return [{ name: definition.name, parameters: definition.parameters }];
  });
  return {
    protocol: 'openai',
    model,
    stream: record.stream === true,
    messages: rawMessages.map(decodeMessage),
    tools,
    toolChoice: decodeToolChoice(record.tool_choice),
    parallelToolCalls: record.parallel_tool_calls !== false,
    maxTokens: optionalNumber(record.max_completion_tokens ?? record.max_tokens, 'max_completion_tokens'),
    stopSequences: readStopSequences(record.stop),
    outputSchema: asRecord(asRecord(record.response_format).json_schema).schema,
    jsonMode: asRecord(record.response_format).type === 'json_object',
    includeStreamUsage: asRecord(record.stream_options).include_usage === true,
  };
}

const ROLES: Record<string, SimulatedMessage['role']> = {
  system: 'system',
  developer: 'system',
  assistant: 'assistant',
  tool: 'tool',
  function: 'tool',
};

function decodeMessage(raw: unknown): SimulatedMessage {
  const message = asRecord(raw);
  const texts: string[] = [];
  if (typeof message.content === 'string') texts.push(message.content);
  for (const part of asArray(message.content)) {
    const { text, refusal } = asRecord(part);
    if (typeof text === 'string') texts.push(text);
    if (typeof refusal === 'string') texts.push(refusal);
  }
  for (const call of asArray(message.tool_calls)) {
    const fn = asRecord(asRecord(call).function);
    texts.push(`${stringifyContent(fn.name)} ${stringifyContent(fn.arguments)}`);
  }
  return { role: ROLES[String(message.role)] ?? 'user', text: texts.join(' ') };
}

function decodeToolChoice(value: unknown): SimulatedToolChoice {
  if (value === 'none') return { type: 'none' };
  const name = asRecord(asRecord(value).function).name;
  return typeof name === 'string' ? { type: 'tool', name } : { type: 'auto' };
}

function mapFinish(finish: PlannedFinish): string {
  return finish === 'stop_sequence' ? 'stop' : finish;
}

function encodeUsage(reply: PlannedReply): Record<string, unknown> {
  return {
    prompt_tokens: reply.promptTokens,
    completion_tokens: reply.completionTokens,
    total_tokens: reply.promptTokens + reply.completionTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

const toolCallId = (context: ResponseContext, index: number) => `call_sim${context.sequence}_${index}`;

function encodeResponse(request: SimulatedRequest, reply: PlannedReply, context: ResponseContext): unknown {
  const toolCalls = reply.toolCalls.map((call, index) => ({
    id: toolCallId(context, index),
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  const message = toolCalls.length > 0
    ? { role: 'assistant', content: null, refusal: null, annotations: [], tool_calls: toolCalls }
    : { role: 'assistant', content: reply.text, refusal: null, annotations: [] };
  return {
    id: `chatcmpl-sim${context.sequence}`,
    object: 'chat.completion',
    created: unixSeconds(),
    model: request.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: mapFinish(reply.finish) }],
    ...(context.includeUsage && { usage: encodeUsage(reply) }),
    service_tier: 'default',
    system_fingerprint: 'fp_simulator',
  };
}

function encodeStreamEvents(request: SimulatedRequest, reply: PlannedReply, context: ResponseContext): StreamEvent[] {
  const base = {
    id: `chatcmpl-sim${context.sequence}`,
    object: 'chat.completion.chunk',
    created: unixSeconds(),
    model: request.model,
    service_tier: 'default',
    system_fingerprint: 'fp_simulator',
  };
  // With include_usage every chunk carries `usage: null` and one extra chunk carries the totals.
  const withUsage = request.includeStreamUsage && context.includeUsage;
  const fill = createJsonTemplate(withUsage ? { ...base, usage: null } : base, ['choices']);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null, tokens: number): StreamEvent => ({
    data: fill([{ index: 0, delta, logprobs: null, finish_reason: finishReason }]),
    tokens,
  });
  const hasToolCalls = reply.toolCalls.length > 0;
  const events = [chunk({ role: 'assistant', content: hasToolCalls ? null : '', refusal: null }, null, 0)];
  reply.toolCalls.forEach((call, index) => {
    const start = { index, id: toolCallId(context, index), type: 'function', function: { name: call.name, arguments: '' } };
    events.push(chunk({ tool_calls: [start] }, null, 0));
    for (const fragment of call.fragments) events.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }, null, 1));
  });
  for (const group of groupPieces(reply.pieces, context)) events.push(chunk({ content: group.text }, null, group.tokens));
  events.push(chunk({}, mapFinish(reply.finish), 0));
  if (withUsage) events.push({ data: JSON.stringify({ ...base, choices: [], usage: encodeUsage(reply) }), tokens: 0 });
  events.push({ data: '[DONE]', tokens: 0 });
  return events;
}
