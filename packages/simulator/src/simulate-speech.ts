import type { ServerResponse } from 'node:http';
import { buildMp3, buildPcm, pcmSampleRate, speechDurationMs } from './build-audio.js';
import { sendBytes, sendMediaJson } from './media-response.js';

const openaiFormats = new Set(['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm']);

/**
 * OpenAI `POST /audio/speech`: the audio file itself. The simulator makes `mp3` and `pcm`; the
 * other formats OpenAI knows are answered 400 here, so a test notices if the gateway sends them.
 */
export function answerOpenAiSpeech(response: ServerResponse, body: Record<string, unknown>): string | undefined {
  const { model, input, voice, response_format: format = 'mp3', speed } = body;
  if (typeof model !== 'string' || !model) return "'model' is required";
  if (typeof input !== 'string' || !input) return "'input' is required";
  if (typeof voice !== 'string' || !voice) return "'voice' is required";
  if (typeof format !== 'string' || !openaiFormats.has(format)) return `Invalid value for 'response_format': ${String(format)}`;
  if (format !== 'mp3' && format !== 'pcm') return `The simulator makes mp3 and pcm only, not ${format}`;
  if (speed !== undefined && (typeof speed !== 'number' || speed < 0.25 || speed > 4)) return "'speed' must be from 0.25 to 4";
  const durationMs = speechDurationMs(input) / ((speed as number | undefined) ?? 1);
  sendBytes(response, format === 'mp3' ? 'audio/mpeg' : 'audio/pcm', format === 'mp3' ? buildMp3(durationMs) : buildPcm(durationMs));
  return undefined;
}

/** Gemini TTS: `generateContent` with AUDIO output answers base64 PCM in an `inlineData` part. */
export function answerGeminiSpeech(response: ServerResponse, body: Record<string, unknown>, model: string): string | undefined {
  const config = body.generationConfig as { responseModalities?: unknown; speechConfig?: { voiceConfig?: { prebuiltVoiceConfig?: { voiceName?: unknown } } } } | undefined;
  if (!Array.isArray(config?.responseModalities) || !config.responseModalities.includes('AUDIO')) return 'This model only supports AUDIO output: set generationConfig.responseModalities to ["AUDIO"].';
  if (typeof config.speechConfig?.voiceConfig?.prebuiltVoiceConfig?.voiceName !== 'string') return 'speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName is required.';
  const text = textOf(body.contents);
  if (!text) return 'contents must hold the text to speak.';
  const pcm = buildPcm(speechDurationMs(text));
  sendMediaJson(response, 200, {
    candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: `audio/L16;codec=pcm;rate=${pcmSampleRate}`, data: pcm.toString('base64') } }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: text.split(/\s+/).length, candidatesTokenCount: Math.ceil(pcm.length / 960), totalTokenCount: 0 },
    modelVersion: model,
  });
  return undefined;
}

/** The text of Gemini `contents`, parts joined. */
export function textOf(contents: unknown): string {
  if (!Array.isArray(contents)) return '';
  return contents
    .flatMap((content) => (Array.isArray((content as { parts?: unknown })?.parts) ? (content as { parts: Array<{ text?: unknown }> }).parts : []))
    .map((part) => (typeof part?.text === 'string' ? part.text : ''))
    .join(' ')
    .trim();
}
