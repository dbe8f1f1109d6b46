import type { GeminiCandidate, GeminiPart } from './gemini-wire-types.js';
import type { SpeechAdapter } from '../media-adapter.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { generateContent } from './generate-content.js';
import { asObjects } from '../shared/lenient-json.js';

/**
 * Gemini TTS: `generateContent` with `responseModalities: ["AUDIO"]` and a prebuilt voice; the
 * answer is base64 PCM (16-bit little-endian, 24 kHz, mono) in an `inlineData` part.
 * Gemini produces no MP3 and has no speed setting, so those requests are refused (400) rather
 * than transcoded here or silently ignored.
 * https://ai.google.dev/gemini-api/docs/speech-generation
 */
export const geminiSpeechAdapter: SpeechAdapter = {
  api: 'gemini',
  incapability(request) {
    if (request.format !== 'pcm') return { field: 'response_format', reason: "must be 'pcm' for Gemini speech models (they produce PCM only; the gateway does not encode MP3)" };
    if (request.speed !== undefined) return { field: 'speed', reason: 'is not supported by Gemini speech models' };
    return undefined;
  },
  async synthesize(request, context) {
    const body = {
      contents: [{ role: 'user', parts: [{ text: request.input }] }],
      generationConfig: {
        responseModalities: ['AUDIO'],
        speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: request.voice } } },
      },
    };
    const result = await generateContent(context, body);
    const parts = asObjects<GeminiPart>(asObjects<GeminiCandidate>(result.candidates)[0]?.content?.parts);
    const audio = parts.map((part) => part.inlineData).filter((data) => data && /^audio\//i.test(data.mimeType) && data.data);
    if (audio.length === 0) throw createProtocolError(context.provider.id, 'answered without audio', JSON.stringify(result).slice(0, 500));
    return Buffer.concat(audio.map((data) => Buffer.from(data!.data, 'base64')));
  },
};
