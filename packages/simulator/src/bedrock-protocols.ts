import { anthropicProtocol } from './anthropic-protocol.js';
import { readBearerToken, simulatorAwsCredentialSet, verifyAwsSignature } from './aws-sigv4.js';
import { asArray, asRecord, pickStatusRow, SimulatorRequestError, type EncodedError, type ErrorDetails, type ProtocolAdapter, type StreamEvent } from './protocol-adapter.js';

/**
 * AWS Bedrock's runtime as its clients meet it: authentication by a SigV4 signature (checked
 * against the simulator's test credentials, `aws-sigv4.ts`) or a Bedrock API key as a bearer
 * token (the simulator's API key); errors as `{message}` with the type in `x-amzn-ErrorType`.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html#API_runtime_InvokeModel_Errors
 */
const ERROR_TYPES: Record<number, [type: string, message: string]> = {
  400: ['ValidationException', 'Malformed input request, please reformat your input and try again.'],
  403: ['AccessDeniedException', "You don't have access to the model with the specified model ID."],
  404: ['ResourceNotFoundException', 'Could not resolve the foundation model from the provided model identifier.'],
  408: ['ModelTimeoutException', 'Model has timed out in processing the request. Try your request again.'],
  424: ['ModelErrorException', 'The model returned an error. Try your request again.'],
  429: ['ThrottlingException', 'Too many requests, please wait before trying again.'],
  500: ['InternalServerException', 'The server encountered an internal error while processing the request.'],
  503: ['ServiceUnavailableException', 'Bedrock is unable to process your request.'],
};

export function encodeBedrockError(status: number, details: ErrorDetails): EncodedError {
  const [type, message] = pickStatusRow(ERROR_TYPES, status);
  return bedrockError(status, type, details.message ?? message);
}

function bedrockError(status: number, type: string, message: string): EncodedError {
  return { status, body: { message }, headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` } };
}

/** The authentication every Bedrock route shares: a Bedrock API key (bearer), else a SigV4 signature for service `bedrock`. */
export const bedrockAuthentication: Pick<ProtocolAdapter, 'isAuthorized' | 'encodeAuthError' | 'authenticate'> = {
  isAuthorized: (headers, _query, apiKey) => readBearerToken(headers) === apiKey,
  encodeAuthError: () => bedrockError(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.'),
  async authenticate(request, apiKey) {
    const bearer = readBearerToken(request.headers);
    if (bearer !== undefined) return bearer === apiKey ? undefined : bedrockError(403, 'UnrecognizedClientException', 'Invalid API Key format: Must start with pre-defined prefix');
    const refusal = await verifyAwsSignature(request, { credentials: simulatorAwsCredentialSet, service: 'bedrock' });
    return refusal && bedrockError(refusal.status, refusal.type, refusal.message);
  },
};

/** Bedrock's words for a body key its Claude schema does not allow. */
function extraneousKey(key: string): SimulatorRequestError {
  return new SimulatorRequestError(`Malformed input request: #: extraneous key [${key}] is not permitted, please reformat your input and try again.`);
}

/**
 * Claude on Bedrock through InvokeModel (`/model/{modelId}/invoke`) and
 * InvokeModelWithResponseStream (`/invoke-with-response-stream`): Anthropic's Messages body
 * without `model` and `stream` (the URL says both) and with `anthropic_version:
 * "bedrock-2023-05-31"`; betas in the body as `anthropic_beta`. The answer is Anthropic's message;
 * the stream is AWS event stream frames, each a `chunk` whose JSON `{"bytes": base64}` holds one
 * Messages stream event, the last (`message_stop`) with Bedrock's invocation metrics.
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html
 */
export const bedrockAnthropicProtocol: ProtocolAdapter = {
  ...anthropicProtocol,
  ...bedrockAuthentication,
  requestIdHeader: 'x-amzn-requestid',
  encodeError: encodeBedrockError,
  decodeRequest(body, route) {
    const { anthropic_version: version, anthropic_beta: betas, ...record } = asRecord(body);
    for (const key of ['model', 'stream']) if (key in record) throw extraneousKey(key);
    if (version === undefined) throw new SimulatorRequestError('Malformed input request: #: required key [anthropic_version] not found, please reformat your input and try again.');
    if (version !== 'bedrock-2023-05-31') throw new SimulatorRequestError('Invalid API version');
    if (betas !== undefined && !asArray(betas).every((beta) => typeof beta === 'string')) throw new SimulatorRequestError('Malformed input request: #/anthropic_beta: expected type: JSONArray, please reformat your input and try again.');
    return anthropicProtocol.decodeRequest({ ...record, model: route.model, stream: route.stream === true }, route);
  },
  encodeStream(request, reply, context) {
    const inner = anthropicProtocol.encodeStream(request, reply, context);
    const events: StreamEvent[] = inner.events.map((event) => ({ event: 'chunk', data: chunkOf(event.event === 'message_stop' ? withInvocationMetrics(event.data, reply.promptTokens, reply.completionTokens) : event.data), tokens: event.tokens }));
    const errorEvent: StreamEvent = { event: 'serviceUnavailableException', messageType: 'exception', data: JSON.stringify({ message: 'Bedrock is unable to process your request.' }), tokens: 0 };
    return { framing: 'aws-eventstream', events, errorEvent };
  },
};

function chunkOf(eventJson: string): string {
  return JSON.stringify({ bytes: Buffer.from(eventJson).toString('base64') });
}

/** Bedrock adds its own metrics to Claude's last event. */
function withInvocationMetrics(data: string, inputTokenCount: number, outputTokenCount: number): string {
  const event = JSON.parse(data) as Record<string, unknown>;
  event['amazon-bedrock-invocationMetrics'] = { inputTokenCount, outputTokenCount, invocationLatency: 0, firstByteLatency: 0 };
  return JSON.stringify(event);
}
