import type { PlannedFinish, PlannedReply } from './plan-reply.js';
import { readBearerToken, simulatorAwsCredentialSet, verifyAwsSignature } from './aws-sigv4.js';
import {
  asArray,
  asRecord,
  groupPieces,
  optionalNumber,
  pickStatusRow,
  readStopSequences,
  SimulatorRequestError,
  stringifyContent,
  type EncodedError,
  type ProtocolAdapter,
  type ProtocolRoute,
  type ResponseContext,
  type SimulatedMessage,
  type SimulatedRequest,
  type SimulatedToolChoice,
  type StreamEvent,
} from './protocol-adapter.js';

/**
 * AWS Bedrock's Converse and ConverseStream (`POST /model/{modelId}/converse` and
 * `/converse-stream`, the model in the path), as bedrock-runtime answers them:
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html and
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html.
 * Requests are signed with SigV4 for the `bedrock` service (checked against the simulator's test
 * credentials, `aws-sigv4.ts`) or carry a Bedrock API key as a bearer token (the simulator's key).
 * Streams are binary `application/vnd.amazon.eventstream` frames. Base URL: `${simulator.url}/bedrock`.
 */
export const bedrockConverseProtocol: ProtocolAdapter = {
  protocol: 'bedrock',
  requestIdHeader: 'x-amzn-requestid',
  isAuthorized: (headers, _query, apiKey) => readBearerToken(headers) === apiKey,
  async authenticate(request, apiKey) {
    const bearer = readBearerToken(request.headers);
    if (bearer !== undefined) return bearer === apiKey ? undefined : awsError(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
    const refusal = await verifyAwsSignature(request, { credentials: simulatorAwsCredentialSet, service: 'bedrock' });
    return refusal ? awsError(refusal.status, refusal.type, refusal.message) : undefined;
  },
  encodeAuthError: () => awsError(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.'),
  encodeError(status, details) {
    const [type, message] = pickStatusRow(ERROR_TYPES, status);
    return awsError(status, type, details.message ?? message);
  },
  decodeRequest,
  encodeResponse,
  encodeStream(request, reply, context) {
    const errorEvent: StreamEvent = { event: 'serviceUnavailableException', messageType: 'exception', data: JSON.stringify({ message: 'Bedrock is unable to process your request.' }), tokens: 0 };
    return { framing: 'aws-eventstream', events: encodeStreamEvents(request, reply, context), errorEvent };
  },
};

/** https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_Errors */
const ERROR_TYPES: Record<number, [type: string, message: string]> = {
  400: ['ValidationException', 'The request is not valid.'],
  403: ['AccessDeniedException', 'You don\'t have access to the model with the specified model ID.'],
  404: ['ResourceNotFoundException', 'The model ID is not found.'],
  408: ['ModelTimeoutException', 'The model took too long to respond.'],
  424: ['ModelErrorException', 'The model returned an error.'],
  429: ['ThrottlingException', 'Too many requests, please wait before trying again.'],
  500: ['InternalServerException', 'An internal server error occurred.'],
  503: ['ServiceUnavailableException', 'Bedrock is unable to process your request.'],
};

/** AWS's JSON error: `{message}`, the type in `x-amzn-ErrorType` as bedrock-runtime writes it. */
function awsError(status: number, type: string, message: string): EncodedError {
  return { status, body: { message }, headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` } };
}

function decodeRequest(body: unknown, route: ProtocolRoute): SimulatedRequest {
  const record = asRecord(body);
  const model = route.model ?? '';
  const rawMessages = asArray(record.messages);
  if (rawMessages.length === 0) throw new SimulatorRequestError('A conversation must start with a user message. Try again with a conversation that starts with a user message.');
  const toolConfig = asRecord(record.toolConfig);
  const hasToolConfig = record.toolConfig !== undefined;
  const messages: SimulatedMessage[] = [];
  const systemText = asArray(record.system).map((block) => asRecord(block).text).filter((text): text is string => typeof text === 'string').join(' ');
  if (systemText !== '') messages.push({ role: 'system', text: systemText });
  rawMessages.forEach((raw, index) => {
    const message = asRecord(raw);
    if (message.role !== 'user' && message.role !== 'assistant') throw new SimulatorRequestError(`messages.${index}.role: expected user or assistant`);
    if (index === 0 && message.role !== 'user') throw new SimulatorRequestError('A conversation must start with a user message. Try again with a conversation that starts with a user message.');
    if (index > 0 && asRecord(rawMessages[index - 1]).role === message.role) throw new SimulatorRequestError('A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.');
    messages.push(decodeMessage(message, index, hasToolConfig));
    if (model.includes('mistral.')) checkMistralToolIds(message, index);
  });
  const inference = asRecord(record.inferenceConfig);
  const schema = asRecord(asRecord(asRecord(asRecord(record.outputConfig).textFormat).structure).jsonSchema).schema;
  let outputSchema: unknown;
  if (typeof schema === 'string') {
    try {
      outputSchema = JSON.parse(schema);
    } catch {
      throw new SimulatorRequestError('outputConfig.textFormat.structure.jsonSchema.schema: not valid JSON');
    }
  }
  return {
    protocol: 'bedrock',
    model,
    stream: route.stream === true,
    messages,
    tools: asArray(toolConfig.tools).flatMap((tool) => {
      const spec = asRecord(asRecord(tool).toolSpec);
      return typeof spec.name === 'string' ? [{ name: spec.name, parameters: asRecord(spec.inputSchema).json ?? {} }] : [];
    }),
    toolChoice: decodeToolChoice(asRecord(toolConfig.toolChoice)),
    parallelToolCalls: true,
    maxTokens: optionalNumber(inference.maxTokens, 'inferenceConfig.maxTokens'),
    stopSequences: readStopSequences(inference.stopSequences),
    outputSchema,
    includeStreamUsage: true,
  };
}

function decodeMessage(message: Record<string, unknown>, index: number, hasToolConfig: boolean): SimulatedMessage {
  const blocks = asArray(message.content).map(asRecord);
  if (blocks.length === 0) throw new SimulatorRequestError(`The content field in the Message object at messages.${index} is empty. Add a ContentBlock object to the content field and try again.`);
  const texts: string[] = [];
  let isToolResult = false;
  blocks.forEach((block, blockIndex) => {
    if ('text' in block) {
      if (typeof block.text !== 'string' || block.text.trim() === '') {
        throw new SimulatorRequestError(`The text field in the ContentBlock object at messages.${index}.content.${blockIndex} is blank. Add text to the text field, and try again.`);
      }
      texts.push(block.text);
    } else if ('toolUse' in block || 'toolResult' in block) {
      if (!hasToolConfig) throw new SimulatorRequestError('The toolConfig field must be defined when using toolUse and toolResult content blocks.');
      const toolUse = asRecord(block.toolUse);
      if ('toolUse' in block) texts.push(`${stringifyContent(toolUse.name)} ${stringifyContent(toolUse.input)}`);
      if ('toolResult' in block) {
        isToolResult = true;
        for (const part of asArray(asRecord(block.toolResult).content).map(asRecord)) {
          if (typeof part.text === 'string') texts.push(part.text);
          else if (part.json !== undefined) texts.push(stringifyContent(part.json));
        }
      }
    } else if ('reasoningContent' in block) {
      const text = asRecord(asRecord(block.reasoningContent).reasoningText).text;
      if (typeof text === 'string') texts.push(text);
    } else if ('image' in block) {
      checkImage(asRecord(block.image), `messages.${index}.content.${blockIndex}.image`);
    }
    // document, cachePoint: no words of their own.
  });
  return { role: isToolResult ? 'tool' : message.role === 'assistant' ? 'assistant' : 'user', text: texts.join(' ') };
}

/**
 * Mistral models on Bedrock refuse tool call ids that are not nine letters and digits (Bedrock's
 * own `tooluse_…` ids included); vercel/ai's amazon-bedrock provider documents the rule
 * (`normalize-tool-call-id.ts`).
 */
function checkMistralToolIds(message: Record<string, unknown>, index: number): void {
  for (const block of asArray(message.content).map(asRecord)) {
    const id = asRecord(block.toolUse).toolUseId ?? asRecord(block.toolResult).toolUseId;
    if (id !== undefined && (typeof id !== 'string' || !/^[a-zA-Z0-9]{9}$/.test(id))) {
      throw new SimulatorRequestError(`messages.${index}: Tool call id was ${String(id)} but must be a-z, A-Z, 0-9, with a length of 9.`);
    }
  }
}

/** An image block: one of Converse's formats, and its bytes (base64 in JSON) or an S3 location. */
function checkImage(image: Record<string, unknown>, path: string): void {
  if (!['png', 'jpeg', 'gif', 'webp'].includes(image.format as string)) throw new SimulatorRequestError(`${path}.format: expected png, jpeg, gif or webp`);
  const source = asRecord(image.source);
  if (typeof source.bytes === 'string') {
    if (source.bytes === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(source.bytes)) throw new SimulatorRequestError(`${path}.source.bytes: expected base64`);
  } else if (typeof asRecord(source.s3Location).uri !== 'string') {
    throw new SimulatorRequestError(`${path}.source: expected bytes or s3Location`);
  }
}

function decodeToolChoice(choice: Record<string, unknown>): SimulatedToolChoice {
  const tool = asRecord(choice.tool);
  if (typeof tool.name === 'string') return { type: 'tool', name: tool.name };
  return { type: 'auto' };
}

const STOP_REASONS: Record<PlannedFinish, string> = { stop: 'end_turn', stop_sequence: 'stop_sequence', length: 'max_tokens', tool_calls: 'tool_use' };

const toolUseId = (context: ResponseContext, index: number) => `tooluse_sim${context.sequence}_${index}`;

function encodeUsage(reply: PlannedReply): Record<string, number> {
  return {
    inputTokens: reply.promptTokens,
    outputTokens: reply.completionTokens,
    totalTokens: reply.promptTokens + reply.completionTokens,
    cacheReadInputTokens: 0,
    cacheWriteInputTokens: 0,
  };
}

function encodeResponse(_request: SimulatedRequest, reply: PlannedReply, context: ResponseContext): Record<string, unknown> {
  const content =
    reply.toolCalls.length > 0
      ? reply.toolCalls.map((call, index) => ({ toolUse: { toolUseId: toolUseId(context, index), name: call.name, input: call.input } }))
      : [{ text: reply.text }];
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: STOP_REASONS[reply.finish],
    ...(context.includeUsage && { usage: encodeUsage(reply) }),
    metrics: { latencyMs: 1 },
  };
}

function encodeStreamEvents(_request: SimulatedRequest, reply: PlannedReply, context: ResponseContext): StreamEvent[] {
  const event = (type: string, payload: Record<string, unknown>, tokens = 0): StreamEvent => ({ event: type, data: JSON.stringify(payload), tokens });
  const events = [event('messageStart', { role: 'assistant' })];
  if (reply.toolCalls.length === 0) {
    for (const group of groupPieces(reply.pieces, context)) events.push(event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: group.text } }, group.tokens));
    events.push(event('contentBlockStop', { contentBlockIndex: 0 }));
  }
  reply.toolCalls.forEach((call, index) => {
    events.push(event('contentBlockStart', { contentBlockIndex: index, start: { toolUse: { toolUseId: toolUseId(context, index), name: call.name } } }));
    for (const fragment of call.fragments) events.push(event('contentBlockDelta', { contentBlockIndex: index, delta: { toolUse: { input: fragment } } }, 1));
    events.push(event('contentBlockStop', { contentBlockIndex: index }));
  });
  events.push(event('messageStop', { stopReason: STOP_REASONS[reply.finish] }));
  events.push(event('metadata', { ...(context.includeUsage && { usage: encodeUsage(reply) }), metrics: { latencyMs: 1 } }));
  return events;
}


