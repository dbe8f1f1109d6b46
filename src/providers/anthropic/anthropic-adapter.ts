import { performance } from 'node:perf_hooks';
import type { TextProviderAdapter } from '../provider-adapter.js';
import { postJson, readJsonObject } from '../shared/send-request.js';
import { startProviderStream } from '../shared/start-provider-stream.js';
import { convertToAnthropicRequest } from './convert-request.js';
import { convertAnthropicResponse } from './convert-response.js';
import { convertAnthropicStream } from './convert-stream.js';
import { messagesRelay } from './relay-messages.js';
import { refusesTemperatureWithTopP } from './sampling-families.js';
import { emulatesJsonMode, jsonModeParts, jsonModeResult } from './emulate-json-mode.js';
import { postMessages, readMessagesEvents } from './transport.js';
import type { AnthropicMessage } from '../../wire/anthropic/wire-types.js';

/**
 * The Anthropic Messages API (`POST {baseUrl}/v1/messages`). HTTP 529 (overloaded) and other
 * error statuses reject through `postJson` as retryable `UpstreamError`s.
 */
export const anthropicAdapter: TextProviderAdapter = {
  api: 'anthropic',
  relay: messagesRelay,
  refusesTemperatureWithTopP,

  async generate(request, context) {
    const payload = convertToAnthropicRequest(request, context.providerModel, false);
    const response = await postMessages(context, request.anthropic?.betas, payload, false);
    const result = convertAnthropicResponse(await readJsonObject<AnthropicMessage>(context.provider.id, response));
    return emulatesJsonMode(request) ? jsonModeResult(result) : result;
  },

  async stream(request, context) {
    const payload = convertToAnthropicRequest(request, context.providerModel, true);
    const deadline = performance.now() + context.provider.timeouts.firstByteMs;
    const { body } = await postMessages(context, request.anthropic?.betas, payload, true);
    const json = emulatesJsonMode(request);
    const { provider } = context;
    return startProviderStream(body, (chunks, options) => (json ? jsonModeParts(convertAnthropicStream(readMessagesEvents(provider, chunks), options)) : convertAnthropicStream(readMessagesEvents(provider, chunks), options)), {
      providerId: context.provider.id,
      signal: context.signal,
      firstPartTimeoutMs: deadline - performance.now(),
    });
  },
};
