import { anthropicProtocol } from './anthropic-protocol.js';
import { geminiProtocol } from './gemini-protocol.js';
import { googleUnauthenticated, hasValidGoogleToken } from './google-oauth.js';
import { asRecord, SimulatorRequestError, type ProtocolAdapter } from './protocol-adapter.js';

/**
 * Gemini on Vertex AI (`publishers/google/models/{m}:generateContent`): Gemini's wire, with an
 * OAuth bearer token issued by the simulator's token endpoint, or a Vertex API key.
 */
export const vertexGeminiProtocol: ProtocolAdapter = {
  ...geminiProtocol,
  isAuthorized: (headers, _query, apiKey) => hasValidGoogleToken(headers) || headers['x-goog-api-key'] === apiKey,
  encodeAuthError: () => googleUnauthenticated,
};

/**
 * Claude on Vertex AI (`publishers/anthropic/models/{m}:rawPredict` / `:streamRawPredict`): the
 * Messages body without `model` (it is in the URL) and with `anthropic_version:
 * "vertex-2023-10-16"`, which Vertex requires; a bearer token only.
 */
export const vertexAnthropicProtocol: ProtocolAdapter = {
  ...anthropicProtocol,
  isAuthorized: (headers) => hasValidGoogleToken(headers),
  encodeAuthError: () => googleUnauthenticated,
  decodeRequest(body, route) {
    const record = asRecord(body);
    if (record.anthropic_version !== 'vertex-2023-10-16') throw new SimulatorRequestError('anthropic_version: Input should be \'vertex-2023-10-16\'');
    if ('model' in record) throw new SimulatorRequestError('model: Extra inputs are not permitted');
    return anthropicProtocol.decodeRequest({ ...record, model: route.model, stream: route.stream === true }, route);
  },
};
