import { UpstreamError } from '../../errors/upstream-error.js';
import { extractErrorMessage } from '../shared/send-request.js';

/**
 * The HTTP status of each Bedrock runtime error type (the `x-amzn-errortype` header of an error
 * answer, the `:exception-type` of a stream's exception frame, lower camel case there):
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html#API_runtime_ConverseStream_Errors
 */
const statusOfType: Record<string, number> = {
  validationexception: 400,
  accessdeniedexception: 403,
  resourcenotfoundexception: 404,
  modeltimeoutexception: 408,
  modelerrorexception: 424,
  modelstreamerrorexception: 424,
  throttlingexception: 429,
  modelnotreadyexception: 429,
  servicequotaexceededexception: 400,
  internalserverexception: 500,
  serviceunavailableexception: 503,
};


/**
 * An exception frame in a ConverseStream body → `UpstreamError` with the status its type stands
 * for, so that retryability follows it as for an error answer. A model's stream error
 * (`modelStreamErrorException`) may well pass on a second try: retryable, as throttling and the
 * 5xx types are; a validation error is not.
 */
export function mapConverseStreamException(providerId: string, type: string | undefined, payload: string): UpstreamError {
  const name = type ?? 'unknownException';
  const key = name.toLowerCase();
  const status = statusOfType[key] ?? 500;
  return new UpstreamError({
    provider: providerId,
    status,
    code: key === 'modeltimeoutexception' ? 'upstream_timeout' : undefined,
    retryable: key === 'modelstreamerrorexception' ? true : undefined,
    message: `${providerId} stream error (${name}): ${extractErrorMessage(payload)}`,
    body: payload,
  });
}
