import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../errors/upstream-error.js';
import { convertToVeoBody, readOperationName, readVeoOperation } from './veo-convert.js';

describe('convertToVeoBody', () => {
  it('puts the prompt in an instance and the frame and duration in parameters', () => {
    expect(convertToVeoBody({ prompt: 'waves', seconds: 8, resolution: '1080p', aspectRatio: '9:16' })).toEqual({
      instances: [{ prompt: 'waves' }],
      parameters: { durationSeconds: 8, resolution: '1080p', aspectRatio: '9:16' },
    });
  });

  it('turns a known size into resolution + aspect ratio, and refuses others', () => {
    expect(convertToVeoBody({ prompt: 'p', seconds: 4, size: '1280x720' }).parameters).toEqual({ durationSeconds: 4, resolution: '720p', aspectRatio: '16:9' });
    expect(() => convertToVeoBody({ prompt: 'p', seconds: 4, size: '1024x1792' })).toThrow(/size/);
    expect(() => convertToVeoBody({ prompt: 'p', seconds: 4, size: '1280x720', aspectRatio: '9:16' })).toThrow(/size/);
  });

  it('sends a data URL image inline and refuses a remote URL', () => {
    expect(convertToVeoBody({ prompt: 'p', seconds: 4, imageUrl: 'data:image/png;base64,iVBORw0K' }).instances[0].image).toEqual({ mimeType: 'image/png', bytesBase64Encoded: 'iVBORw0K' });
    expect(() => convertToVeoBody({ prompt: 'p', seconds: 4, imageUrl: 'https://example.com/a.png' })).toThrow(/image_url/);
  });
});

describe('readVeoOperation', () => {
  it('is pending until done, with progress when the metadata has it', () => {
    expect(readVeoOperation('g', { name: 'operations/1', done: false })).toEqual({ state: 'queued', progress: undefined });
    expect(readVeoOperation('g', { name: 'operations/1', metadata: { progressPercent: 40 } })).toEqual({ state: 'in_progress', progress: 40 });
  });

  it('reads the video URI, the error, or the safety filter', () => {
    const uri = 'https://generativelanguage.googleapis.com/v1beta/files/abc:download?alt=media';
    expect(readVeoOperation('g', { done: true, response: { generateVideoResponse: { generatedSamples: [{ video: { uri } }] } } })).toEqual({ state: 'completed', result: { uri } });
    expect(readVeoOperation('g', { done: true, error: { code: 3, message: 'bad prompt', status: 'INVALID_ARGUMENT' } })).toEqual({ state: 'failed', error: 'INVALID_ARGUMENT: bad prompt' });
    expect(readVeoOperation('g', { done: true, response: { generateVideoResponse: { raiMediaFilteredCount: 1, raiMediaFilteredReasons: ['celebrity'] } } })).toEqual({
      state: 'failed',
      error: 'The provider filtered the video: celebrity',
    });
    expect(() => readVeoOperation('g', { done: true, response: {} })).toThrow(UpstreamError);
  });

  it('accepts only operation names that are safe in a URL path', () => {
    expect(readOperationName('g', { name: 'models/veo-3.0-generate-001/operations/abc123' })).toBe('models/veo-3.0-generate-001/operations/abc123');
    expect(() => readOperationName('g', { name: '../../admin' })).toThrow(UpstreamError);
    expect(() => readOperationName('g', { name: 'https://evil.example/x' })).toThrow(UpstreamError);
    expect(() => readOperationName('g', {})).toThrow(UpstreamError);
  });
});
