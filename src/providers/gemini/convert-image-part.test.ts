import { describe, expect, it } from 'vitest';
import { convertImagePart, guessImageMimeType } from './convert-image-part.js';

describe('convertImagePart', () => {
  it('sends base64 sources and data URLs inline, other URLs as fileData', () => {
    expect(convertImagePart({ type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/4AAQ' } })).toEqual({
      inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQ' },
    });
    expect(convertImagePart({ type: 'image', source: { kind: 'url', url: 'data:image/png;charset=utf-8;base64,iVBORw0K' } })).toEqual({
      inlineData: { mimeType: 'image/png', data: 'iVBORw0K' },
    });
    expect(convertImagePart({ type: 'image', source: { kind: 'url', url: 'gs://bucket/photos/cat.PNG' } })).toEqual({
      fileData: { fileUri: 'gs://bucket/photos/cat.PNG', mimeType: 'image/png' },
    });
  });

  it('rejects data URLs without a media type', () => {
    expect(() => convertImagePart({ type: 'image', source: { kind: 'url', url: 'data:;base64,AAAA' } })).toThrowError(/data URLs/);
  });
});

describe('guessImageMimeType', () => {
  it('reads the extension of the path, ignoring the query, and defaults to JPEG', () => {
    expect(guessImageMimeType('https://cdn.example.com/a/b/photo.webp?w=200#x')).toBe('image/webp');
    expect(guessImageMimeType('https://example.com/img.jpeg')).toBe('image/jpeg');
    expect(guessImageMimeType('https://example.com/shot.heic')).toBe('image/heic');
    expect(guessImageMimeType('https://example.com/render?format=png')).toBe('image/jpeg');
    expect(guessImageMimeType('https://example.com/file.bmp')).toBe('image/jpeg');
  });
});
