import type { PlannedReply } from './plan-reply.js';
import {
  asArray,
  asRecord,
  createJsonTemplate,
  groupPieces,
  optionalNumber,
  pickStatusRow,
  readStopSequences,
  SimulatorRequestError,
  stringifyContent,
  type ErrorDetails,
  type ProtocolAdapter,
  type ProtocolRoute,
  type ResponseContext,
  type SimulatedMessage,
  type SimulatedRequest,
  type SimulatedToolChoice,
  type StreamEvent,
} from './protocol-adapter.js';

/**
 * Gemini generateContent / streamGenerateContent, https://ai.google.dev/api/generate-content.
 * Base URL for SDKs: `${simulator.url}/gemini/v1beta`. The model and streaming live in the path
 * (`models/{model}:streamGenerateContent?alt=sse`); without `alt=sse` the stream is one JSON array.
 */
export const geminiProtocol: ProtocolAdapter = {
  protocol: 'gemini',
  isAuthorized: (headers, query, apiKey) => headers['x-goog-api-key'] === apiKey || query.get('key') === apiKey,
  // Gemini answers a bad API key with 400 INVALID_ARGUMENT and reason API_KEY_INVALID, not a 401.
  encodeAuthError: () => ({
    status: 400,
    body: {
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'API_KEY_INVALID',
            domain: 'googleapis.com',
            metadata: { service: 'generativelanguage.googleapis.com' },
          },
        ],
      },
    },
  }),
  encodeError: (status, details) => ({ status, body: errorBody(status, details) }),
  decodeRequest,
  encodeResponse,
  encodeStream(request, reply, context) {
    const errorEvent = { data: JSON.stringify(errorBody(500, { sequence: context.sequence })), tokens: 0 };
    return { framing: 'sse-crlf', events: encodeStreamEvents(request, reply, context), errorEvent };
  },
};

const STATUS_NAMES: Record<number, [status: string, message: string]> = {
  400: ['INVALID_ARGUMENT', 'Request contains an invalid argument.'],
  401: ['UNAUTHENTICATED', 'Request had invalid authentication credentials.'],
  403: ['PERMISSION_DENIED', 'The caller does not have permission.'],
  404: ['NOT_FOUND', 'Requested entity was not found.'],
  429: ['RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).'],
  500: ['INTERNAL', 
    'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  ],
  503: ['UNAVAILABLE', 'The model is overloaded. Please try again later.'],
  504: ['DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.'],
};

function errorBody(status: number, details: ErrorDetails): Record<string, unknown> {
  const [name, message] = pickStatusRow(STATUS_NAMES, status);
  const error: Record<string, unknown> = { code: status, message: details.message ?? message, status: name };
  // Google APIs say when to retry in a RetryInfo detail rather than (only) a header.
  if (details.retryAfterSeconds !== undefined) {
    error.details = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${details.retryAfterSeconds}s` }];
  }
  return { error };
}

function decodeRequest(body: unknown, route: ProtocolRoute): SimulatedRequest {
  const record = asRecord(body);
  const contents = asArray(record.contents);
  if (contents.length === 0) throw new SimulatorRequestError('* GenerateContentRequest.contents: contents is not specified');
  const systemText = partTexts(asRecord(record.systemInstruction ?? record.system_instruction).parts).join(' ');
  const messages: SimulatedMessage[] = systemText === '' ? [] : [{ role: 'system', text: systemText }];
  for (const raw of contents) {
    const content = asRecord(raw);
    const parts = asArray(content.parts).map(asRecord);
    const role = content.role === 'model' ? 'assistant' : parts.some((part) => part.functionResponse !== undefined) ? 'tool' : 'user';
    messages.push({ role, text: partTexts(parts).join(' ') });
  }
  const generation = asRecord(record.generationConfig ?? record.generation_config);
  return {
    protocol: 'gemini',
    model: route.model ?? '',
    stream: route.stream === true,
    messages,
    tools: asArray(record.tools).flatMap((tool) =>
      asArray(asRecord(tool).functionDeclarations ?? asRecord(tool).function_declarations).flatMap((raw) => {
        const declaration = asRecord(raw);
        const parameters = declaration.parameters ?? declaration.parametersJsonSchema ?? {};
        return typeof declaration.name === 'string' ? [{ name: declaration.name, parameters }] : [];
      }),
    ),
    toolChoice: decodeToolChoice(asRecord(asRecord(record.toolConfig ?? record.tool_config).functionCallingConfig)),
    parallelToolCalls: true,
    maxTokens: optionalNumber(generation.maxOutputTokens ?? generation.max_output_tokens, 'generationConfig.maxOutputTokens'),
    stopSequences: readStopSequences(generation.stopSequences ?? generation.stop_sequences),
    outputSchema: generation.responseJsonSchema,
    jsonMode: (generation.responseMimeType ?? generation.response_mime_type) === 'application/json',
    includeStreamUsage: true,
  };
}

function partTexts(parts: unknown): string[] {
  return asArray(parts).flatMap((raw) => {
    const part = asRecord(raw);
    if (typeof part.text === 'string') return [part.text];
    const call = asRecord(part.functionCall);
    if (typeof call.name === 'string') return [`${call.name} ${stringifyContent(call.args ?? {})}`];
    const response = asRecord(part.functionResponse);
    if (response.response !== undefined) return [stringifyContent(response.response)];
    return [];
  });
}

function decodeToolChoice(config: Record<string, unknown>): SimulatedToolChoice {
  if (config.mode === 'NONE') return { type: 'none' };
  const allowed = asArray(config.allowedFunctionNames);
  if (config.mode === 'ANY' && typeof allowed[0] === 'string') return { type: 'tool', name: allowed[0] };
  return { type: 'auto' };
}

function encodeUsage(reply: PlannedReply, candidatesTokens: number): Record<string, unknown> {
  return {
    promptTokenCount: reply.promptTokens,
    candidatesTokenCount: candidatesTokens,
    totalTokenCount: reply.promptTokens + candidatesTokens,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: reply.promptTokens }],
  };
}

function encodeParts(reply: PlannedReply, text: string): Record<string, unknown>[] {
  return reply.toolCalls.length > 0 ? reply.toolCalls.map((call) => ({ functionCall: { name: call.name, args: call.input } })) : [{ text }];
}

const finishReasonOf = (reply: PlannedReply) => (reply.finish === 'length' ? 'MAX_TOKENS' : 'STOP');

function encodeResponse(request: SimulatedRequest, reply: PlannedReply, context: ResponseContext): unknown {
  return {
    candidates: [{ content: { parts: encodeParts(reply, reply.text), role: 'model' }, finishReason: finishReasonOf(reply), index: 0 }],
    ...(context.includeUsage && { usageMetadata: encodeUsage(reply, reply.completionTokens) }),
    modelVersion: request.model,
    responseId: `sim${context.sequence}`,
  };
}

function encodeStreamEvents(request: SimulatedRequest, reply: PlannedReply, context: ResponseContext): StreamEvent[] {
  // Function calls arrive whole in one chunk: Gemini does not stream partial arguments.
  const whole = reply.toolCalls.length > 0 || reply.pieces.length === 0;
  const groups = whole ? [{ text: '', tokens: reply.completionTokens }] : groupPieces(reply.pieces, context);
  // Slot keys listed first keep the vendor's field order: candidates, usageMetadata, modelVersion…
  const constant = { candidates: undefined, usageMetadata: undefined, modelVersion: request.model, responseId: `sim${context.sequence}` };
  const fill = createJsonTemplate(constant, context.includeUsage ? ['candidates', 'usageMetadata'] : ['candidates']);
  let generated = 0;
  return groups.map((group, index) => {
    generated += group.tokens;
    const candidate: Record<string, unknown> = { content: { parts: encodeParts(reply, group.text), role: 'model' }, index: 0 };
    if (index === groups.length - 1) candidate.finishReason = finishReasonOf(reply);
    return { data: fill([candidate], encodeUsage(reply, generated)), tokens: group.tokens };
  });
}
