import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import { UpstreamError } from '../../errors/upstream-error.js';
import { convertToOpenAiVideoBody, readOpenAiJobId, readOpenAiVideoJob } from './videos-convert.js';

describe('convertToOpenAiVideoBody', () => {
  it('sends seconds as the string OpenAI expects, the size, and an image reference by URL', () => {
    expect(convertToOpenAiVideoBody({ prompt: 'cat', seconds: 8, size: '1280x720', imageUrl: 'https://x/y.png' }, 'sora-2')).toEqual({
      model: 'sora-2',
      prompt: 'cat',
      seconds: '8',
      size: '1280x720',
      input_reference: { image_url: 'https://x/y.png' },
    });
  });

  it('turns resolution + aspect ratio into the matching size, and refuses what has none', () => {
    expect(convertToOpenAiVideoBody({ prompt: 'p', seconds: 4, resolution: '720p', aspectRatio: '9:16' }, 'm').size).toBe('720x1280');
    expect(convertToOpenAiVideoBody({ prompt: 'p', seconds: 4, resolution: '1080p', aspectRatio: '16:9' }, 'm').size).toBe('1920x1080');
    expect(() => convertToOpenAiVideoBody({ prompt: 'p', seconds: 4, resolution: '720p' }, 'm')).toThrow(GatewayError);
    expect(() => convertToOpenAiVideoBody({ prompt: 'p', seconds: 4, aspectRatio: '16:9' }, 'm')).toThrow(/aspect_ratio/);
    expect(() => convertToOpenAiVideoBody({ prompt: 'p', seconds: 4, size: '720x1280', resolution: '720p', aspectRatio: '16:9' }, 'm')).toThrow(/resolution/);
  });
});

describe('readOpenAiVideoJob', () => {
  it('maps the job statuses, progress, seconds and the error', () => {
    expect(readOpenAiVideoJob('p', { id: 'v', status: 'queued', progress: 0 })).toEqual({ state: 'queued', progress: 0 });
    expect(readOpenAiVideoJob('p', { id: 'v', status: 'in_progress', progress: 42 })).toEqual({ state: 'in_progress', progress: 42 });
    expect(readOpenAiVideoJob('p', { id: 'v', status: 'completed', progress: 100, seconds: '12' })).toEqual({ state: 'completed', seconds: 12, result: {} });
    expect(readOpenAiVideoJob('p', { id: 'v', status: 'failed', error: { code: 'moderation_blocked', message: 'blocked' } })).toEqual({ state: 'failed', error: 'moderation_blocked: blocked' });
    expect(readOpenAiVideoJob('p', { id: 'v', status: 'rendering' })).toEqual({ state: 'in_progress', progress: undefined });
  });

  it('treats a job without a status or id as a protocol error (retryable)', () => {
    expect(() => readOpenAiVideoJob('p', { id: 'v' })).toThrow(UpstreamError);
    expect(() => readOpenAiJobId('p', { status: 'queued' })).toThrow(UpstreamError);
    expect(readOpenAiJobId('p', { id: 'video_1' })).toBe('video_1');
  });
});
