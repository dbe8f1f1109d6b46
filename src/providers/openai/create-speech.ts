import type { SpeechAdapter } from '../media-adapter.js';
import { readUpstreamBytes, sendUpstream } from '../shared/send-upstream.js';
import { authorizationHeaders, openaiOperationUrl } from './transport.js';

/** An hour of 24 kHz 16-bit PCM is 173 MB; OpenAI's 4096-character limit stays far below this. */
export const maxAudioBytes = 64 * 1024 * 1024;

/**
 * OpenAI speech: POST {base}/audio/speech answers the audio file itself. `pcm` is 24 kHz 16-bit
 * little-endian mono, the same as Gemini's, so both protocols answer `pcm` alike.
 * https://platform.openai.com/docs/api-reference/audio/createSpeech
 */
export const openaiSpeechAdapter: SpeechAdapter = {
  api: 'openai',
  incapability: () => undefined,
  async synthesize(request, context) {
    const { provider } = context;
    const body: Record<string, unknown> = { model: context.providerModel, input: request.input, voice: request.voice, response_format: request.format };
    if (request.speed !== undefined) body.speed = request.speed;
    const headers = await authorizationHeaders(provider);
    const response = await sendUpstream(context, openaiOperationUrl(provider, context.providerModel, 'audio/speech'), { method: 'POST', json: body, headers: { ...headers, accept: 'audio/*' } });
    return readUpstreamBytes(provider.id, response, maxAudioBytes);
  },
};
