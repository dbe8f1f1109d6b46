import { describe, expect, it } from 'vitest';
import { bedrockStreamException } from './bedrock-exception.js';
import { decodeMessage, encodeEventStreamMessage } from './event-stream.js';

const exception = (type: string, body: string) =>
  decodeMessage(encodeEventStreamMessage({ headers: { ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' }, body }));

describe('Bedrock stream exceptions', () => {
  it.each([
    ['throttlingException', 429, true, 'rate_limited'],
    ['serviceUnavailableException', 503, true, 'upstream_error'],
    ['internalServerException', 500, true, 'upstream_error'],
    ['modelTimeoutException', 408, true, 'upstream_timeout'],
    ['modelNotReadyException', 429, true, 'rate_limited'],
    ['modelStreamErrorException', 424, false, 'upstream_error'],
    ['validationException', 400, false, 'upstream_error'],
  ])('%s → %i, retryable %s', (type, status, retryable, code) => {
    const error = bedrockStreamException('bedrock', exception(type, '{"message":"Too many tokens, please wait before trying again."}'));
    expect(error).toMatchObject({ provider: 'bedrock', status, retryable, code });
    expect(error.message).toBe(`bedrock stream error (${type}): Too many tokens, please wait before trying again.`);
  });

  it('keeps a body that is not JSON as the message, and an unknown type as a 500', () => {
    expect(bedrockStreamException('bedrock', exception('somethingNewException', 'plain words'))).toMatchObject({ status: 500, message: 'bedrock stream error (somethingNewException): plain words' });
  });
});
