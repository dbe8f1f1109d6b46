import { UpstreamError } from '../../errors/upstream-error.js';
import { awsThrottlingRetryAfterSeconds } from '../shared/send-request.js';
import type { EventStreamMessage } from './event-stream.js';

/**
 * The HTTP status each Bedrock runtime exception stands for (the `:exception-type` of a stream's
 * exception frame is the error's name with a lower-case first letter), so that a failure inside a
 * stream retries and fails over as the same failure answered as an error status would.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html#API_runtime_InvokeModelWithResponseStream_Errors
 */
const statusOfException: Record<string, number> = {
  throttlingException: 429,
  serviceUnavailableException: 503,
  internalServerException: 500,
  modelTimeoutException: 408,
  modelStreamErrorException: 424,
  modelNotReadyException: 429,
  validationException: 400,
  accessDeniedException: 403,
  resourceNotFoundException: 404,
  serviceQuotaExceededException: 400,
};

/** An exception frame (`:message-type: exception`) of a Bedrock stream → `UpstreamError`. */
export function bedrockStreamException(providerId: string, message: EventStreamMessage): UpstreamError {
  const type = message.headers[':exception-type'] ?? 'unknownException';
  const body = Buffer.from(message.body).toString('utf8');
  let text = '';
  try {
    const parsed = JSON.parse(body) as { message?: unknown; Message?: unknown };
    const found = parsed.message ?? parsed.Message;
    if (typeof found === 'string') text = found;
  } catch {
    text = body;
  }
  const status = statusOfException[type] ?? 500;
  return new UpstreamError({
    provider: providerId,
    status,
    code: type === 'modelTimeoutException' ? 'upstream_timeout' : undefined,
    message: `${providerId} stream error (${type}): ${text.slice(0, 500) || 'no error message'}`,
    body,
    ...(type === 'throttlingException' && { retryAfterSeconds: awsThrottlingRetryAfterSeconds }),
  });
}
