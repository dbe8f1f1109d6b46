import { performance } from 'node:perf_hooks';
import { decodeEventStream, EventStreamFramingError, type EventStreamMessage } from '../aws/event-stream.js';
import type { TextProviderAdapter } from '../provider-adapter.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { readJsonObject } from '../shared/send-request.js';
import { startProviderStream } from '../shared/start-provider-stream.js';
import { refusesTemperatureWithTopP } from '../anthropic/sampling-families.js';
import { convertToConverseRequest, converseModelFamily } from './convert-request.js';
import { convertConverseResponse } from './convert-response.js';
import { convertConverseStream } from './convert-stream.js';
import { postConverse } from './transport.js';
import type { ConverseResponse } from './wire-types.js';

/**
 * AWS Bedrock's Converse API (`POST {base}/model/{modelId}/converse`) and ConverseStream
 * (`/converse-stream`, AWS's binary event stream): one wire for every Bedrock text model.
 * Error statuses reject through `sendRequest` as `UpstreamError`s (429 throttling and 5xx retryable).
 */
export const bedrockAdapter: TextProviderAdapter = {
  api: 'bedrock',
  // Converse passes both sampling settings to the model: Claude's families refuse them as on
  // Anthropic's own wire; Bedrock's other families take both.
  refusesTemperatureWithTopP: (providerModel) => converseModelFamily(providerModel) === 'claude' && refusesTemperatureWithTopP(providerModel),

  async generate(request, context) {
    const payload = convertToConverseRequest(request, context.providerModel);
    const response = await postConverse(context, payload, false);
    return convertConverseResponse(await readJsonObject<ConverseResponse>(context.provider.id, response));
  },

  async stream(request, context) {
    const payload = convertToConverseRequest(request, context.providerModel);
    const deadline = performance.now() + context.provider.timeouts.firstByteMs;
    const { body } = await postConverse(context, payload, true);
    const providerId = context.provider.id;
    return startProviderStream(body, (chunks, options) => convertConverseStream(readConverseMessages(chunks, providerId), options), {
      providerId,
      signal: context.signal,
      firstPartTimeoutMs: deadline - performance.now(),
    });
  },
};

/** The body's event stream frames as Converse messages; broken framing is the provider's protocol error. */
export async function* readConverseMessages(chunks: AsyncIterable<Uint8Array | string>, providerId: string): AsyncGenerator<EventStreamMessage> {
  try {
    yield* decodeEventStream(asBytes(chunks));
  } catch (error) {
    if (error instanceof EventStreamFramingError) throw createProtocolError(providerId, `sent a broken event stream: ${error.message}`);
    throw error;
  }
}

async function* asBytes(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) yield typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
}
