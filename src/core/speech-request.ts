/** Speech synthesis, as every inbound request and provider protocol sees it. */
export type SpeechFormat = 'mp3' | 'pcm';

export const speechFormats: readonly SpeechFormat[] = ['mp3', 'pcm'];

export interface SpeechRequest {
  input: string;
  voice: string;
  /** `mp3`, or `pcm`: raw 16-bit little-endian mono samples at 24 kHz. */
  format: SpeechFormat;
  /** 0.25–4; absent means the provider's normal speed. */
  speed?: number;
}

/** The priced unit of speech: Unicode code points of the input, not UTF-16 units. */
export function countSpeechCharacters(input: string): number {
  let count = 0;
  for (const _ of input) count += 1;
  return count;
}
