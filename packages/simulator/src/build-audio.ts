/**
 * Simulated speech. Its length follows the input: `msPerCharacter` per character, at least one
 * MP3 frame. PCM is what OpenAI and Gemini send: 16-bit little-endian mono at 24 kHz (a quiet
 * 440 Hz tone here). MP3 is a run of silent MPEG-1 Layer III frames: 48 kHz, 128 kbit/s, mono,
 * no CRC, so every frame is 144 × 128000 / 48000 = 384 bytes (no padding) holding 1152 samples
 * (24 ms); side information and main data are zero, which decoders play as silence.
 */
export const pcmSampleRate = 24_000;
export const msPerCharacter = 20;
export const mp3FrameBytes = 384;
export const mp3FrameMs = 24;

/** FF FB: sync, MPEG-1, Layer III, no CRC. 94: 128 kbit/s, 48 kHz, no padding. C0: mono. */
const mp3FrameHeader = [0xff, 0xfb, 0x94, 0xc0];

export function speechDurationMs(input: string): number {
  return Math.max(mp3FrameMs, [...input].length * msPerCharacter);
}

export function buildPcm(durationMs: number): Buffer {
  const samples = Math.round((pcmSampleRate * durationMs) / 1000);
  const pcm = Buffer.alloc(samples * 2);
  for (let index = 0; index < samples; index += 1) {
    pcm.writeInt16LE(Math.round(2000 * Math.sin((2 * Math.PI * 440 * index) / pcmSampleRate)), index * 2);
  }
  return pcm;
}

export function buildMp3(durationMs: number): Buffer {
  const frames = Math.max(1, Math.ceil(durationMs / mp3FrameMs));
  const frame = Buffer.alloc(mp3FrameBytes);
  frame.set(mp3FrameHeader, 0);
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}
