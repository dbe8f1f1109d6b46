import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMp3, buildPcm, mp3FrameBytes, msPerCharacter } from './build-audio.js';
import { buildPng, crc32 } from './build-png.js';
import { matchMediaRoute } from './match-media-route.js';
import { startSimulator } from './start-simulator.js';
import type { Simulator } from './simulator-types.js';

/** Reads a PNG the strict way: signature, every chunk's CRC, IHDR, and the inflated pixel rows. */
function readPng(bytes: Buffer): { width: number; height: number; pixel: number[] } {
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let offset = 8;
  const chunks: Array<{ type: string; data: Buffer }> = [];
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const typed = bytes.subarray(offset + 4, offset + 8 + length);
    expect(bytes.readUInt32BE(offset + 8 + length)).toBe(crc32(typed));
    chunks.push({ type: typed.subarray(0, 4).toString('latin1'), data: typed.subarray(4) });
    offset += 12 + length;
  }
  expect(chunks.map((chunk) => chunk.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
  const width = chunks[0].data.readUInt32BE(0);
  const height = chunks[0].data.readUInt32BE(4);
  const pixels = inflateSync(chunks[1].data);
  expect(pixels.length).toBe(height * (1 + width * 3));
  return { width, height, pixel: [...pixels.subarray(1, 4)] };
}

/** Walks MPEG audio frames from the first byte to the last, checking each header. */
function readMp3Frames(bytes: Buffer): number {
  const bitrates = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
  const rates = [44100, 48000, 32000];
  let offset = 0;
  let frames = 0;
  while (offset < bytes.length) {
    expect(bytes[offset]).toBe(0xff);
    expect(bytes[offset + 1] & 0xe0).toBe(0xe0); // 11-bit sync
    expect((bytes[offset + 1] >> 3) & 0x3).toBe(0x3); // MPEG-1
    expect((bytes[offset + 1] >> 1) & 0x3).toBe(0x1); // Layer III
    const bitrate = bitrates[bytes[offset + 2] >> 4] * 1000;
    const rate = rates[(bytes[offset + 2] >> 2) & 0x3];
    const padding = (bytes[offset + 2] >> 1) & 0x1;
    const length = Math.floor((144 * bitrate) / rate) + padding;
    expect(length).toBe(mp3FrameBytes);
    offset += length;
    frames += 1;
  }
  expect(offset).toBe(bytes.length);
  return frames;
}

describe('media building blocks', () => {
  it('builds valid PNGs of the asked size and colour', () => {
    expect(readPng(buildPng(3, 2, [10, 20, 30]))).toEqual({ width: 3, height: 2, pixel: [10, 20, 30] });
    expect(readPng(buildPng(1024, 1024, [1, 2, 3])).width).toBe(1024);
  });

  it('builds MP3 as whole silent MPEG-1 Layer III frames', () => {
    expect(readMp3Frames(buildMp3(1000))).toBe(42);
    expect(readMp3Frames(buildMp3(1))).toBe(1);
  });

  it('builds 16-bit mono PCM at 24 kHz', () => {
    expect(buildPcm(1000)).toHaveLength(48_000);
  });

  it('matches the media routes, and leaves Gemini text models to the text protocol', () => {
    expect(matchMediaRoute('POST', '/openai/v1/audio/speech')).toEqual({ kind: 'openai-speech' });
    expect(matchMediaRoute('POST', '/gemini/v1beta/models/gemini-2.5-flash-preview-tts:generateContent')).toEqual({ kind: 'gemini-speech', model: 'gemini-2.5-flash-preview-tts' });
    expect(matchMediaRoute('POST', '/gemini/v1beta/models/gemini-3-pro-image:generateContent')).toEqual({ kind: 'gemini-image', model: 'gemini-3-pro-image' });
    expect(matchMediaRoute('POST', '/gemini/v1beta/models/gemini-sim:generateContent')).toBeUndefined();
    expect(matchMediaRoute('POST', '/fal/fal-ai/flux/dev')).toEqual({ kind: 'fal-submit', modelId: 'fal-ai/flux/dev' });
    expect(matchMediaRoute('GET', '/fal/fal-ai/flux/requests/abc/status')).toEqual({ kind: 'fal-status', requestId: 'abc' });
    expect(matchMediaRoute('GET', '/fal/fal-ai/flux/requests/abc')).toEqual({ kind: 'fal-result', requestId: 'abc' });
  });
});

describe('the simulator over HTTP', () => {
  let simulator: Simulator;
  beforeAll(async () => {
    simulator = await startSimulator({ apiKey: 'sim-key', imageJobDurationMs: 300 });
  });
  afterAll(() => simulator.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${simulator.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const openai = { authorization: 'Bearer sim-key' };

  it('speaks OpenAI speech in mp3 and pcm, as long as the input', async () => {
    const mp3 = await post('/openai/v1/audio/speech', { model: 'tts-sim', input: 'Hello there', voice: 'alloy' }, openai);
    expect(mp3.headers.get('content-type')).toBe('audio/mpeg');
    readMp3Frames(Buffer.from(await mp3.arrayBuffer()));
    const pcm = await post('/openai/v1/audio/speech', { model: 'tts-sim', input: 'Hello there', voice: 'alloy', response_format: 'pcm' }, openai);
    expect(pcm.headers.get('content-type')).toBe('audio/pcm');
    expect((await pcm.arrayBuffer()).byteLength).toBe(11 * msPerCharacter * 48);
    expect((await post('/openai/v1/audio/speech', { model: 'tts-sim', input: 'x', voice: 'alloy' })).status).toBe(401);
    expect((await post('/openai/v1/audio/speech', { model: 'tts-sim', input: 'x', voice: 'alloy', response_format: 'ogg' }, openai)).status).toBe(400);
  });

  it('speaks Gemini TTS as base64 PCM', async () => {
    const response = await post(
      '/gemini/v1beta/models/gemini-tts-sim:generateContent',
      { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } } },
      { 'x-goog-api-key': 'sim-key' },
    );
    const body = (await response.json()) as { candidates: Array<{ content: { parts: Array<{ inlineData: { mimeType: string; data: string } }> } }> };
    const part = body.candidates[0].content.parts[0].inlineData;
    expect(part.mimeType).toBe('audio/L16;codec=pcm;rate=24000');
    expect(Buffer.from(part.data, 'base64').length).toBe(2 * msPerCharacter * 48);
  });

  it('makes OpenAI images and edits a multipart upload', async () => {
    const generated = await post('/openai/v1/images/generations', { model: 'img-sim', prompt: 'a red fox', n: 2, size: '64x32' }, openai);
    const body = (await generated.json()) as { data: Array<{ b64_json: string }> };
    expect(body.data).toHaveLength(2);
    expect(readPng(Buffer.from(body.data[0].b64_json, 'base64'))).toMatchObject({ width: 64, height: 32 });

    const form = new FormData();
    form.append('model', 'img-sim');
    form.append('prompt', 'make it blue');
    form.append('image', new Blob([buildPng(4, 4, [0, 0, 0])], { type: 'image/png' }), 'in.png');
    const edited = await fetch(`${simulator.url}/openai/v1/images/edits`, { method: 'POST', headers: openai, body: form });
    expect(edited.status).toBe(200);
    const notAnImage = new FormData();
    notAnImage.append('prompt', 'x');
    notAnImage.append('image', new Blob(['text'], { type: 'text/plain' }), 'in.txt');
    expect((await fetch(`${simulator.url}/openai/v1/images/edits`, { method: 'POST', headers: openai, body: notAnImage })).status).toBe(400);
  });

  it('runs fal queue jobs: IN_QUEUE or IN_PROGRESS (202), then COMPLETED (200) with image URLs', async () => {
    const fal = { authorization: 'Key sim-key' };
    const submitted = (await (await post('/fal/fal-ai/flux/dev', { prompt: 'a lighthouse', num_images: 2, image_size: { width: 16, height: 8 } }, fal)).json()) as Record<string, string>;
    expect(submitted.status_url).toBe(`${simulator.url}/fal/fal-ai/flux/requests/${submitted.request_id}/status`);
    const early = await fetch(submitted.status_url, { headers: fal });
    expect(early.status).toBe(202);
    expect(['IN_QUEUE', 'IN_PROGRESS']).toContain(((await early.json()) as { status: string }).status);
    expect((await fetch(submitted.response_url, { headers: fal })).status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 350));
    const done = await fetch(submitted.status_url, { headers: fal });
    expect(done.status).toBe(200);
    expect(((await done.json()) as { status: string }).status).toBe('COMPLETED');
    const result = (await (await fetch(submitted.response_url, { headers: fal })).json()) as { images: Array<{ url: string; content_type: string }> };
    expect(result.images).toHaveLength(2);
    const png = Buffer.from(await (await fetch(result.images[0].url)).arrayBuffer());
    expect(readPng(png)).toMatchObject({ width: 16, height: 8 });
    expect((await fetch(submitted.status_url)).status).toBe(401);
    expect(simulator.stats().fal).toMatchObject({ submitted: 1, fileDownloads: 1 });
  });

  it('fails a fal job on [[sim:fail]], and answers [[sim:status=N]] at submission', async () => {
    const fal = { authorization: 'Key sim-key' };
    const submitted = (await (await post('/fal/fal-ai/flux/dev', { prompt: 'x [[sim:fail,job_ms=0]]' }, fal)).json()) as Record<string, string>;
    const status = (await (await fetch(submitted.status_url, { headers: fal })).json()) as { status: string; error?: string };
    expect(status).toMatchObject({ status: 'COMPLETED', error: 'Simulated failure' });
    expect((await fetch(submitted.response_url, { headers: fal })).status).toBe(422);
    expect((await post('/fal/fal-ai/flux/dev', { prompt: 'x [[sim:status=503]]' }, fal)).status).toBe(503);
    expect((await post('/fal/fal-ai/flux/dev', { prompt: 'x [[sim:bogus]]' }, fal)).status).toBe(422);
  });
});
