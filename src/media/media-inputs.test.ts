import { describe, expect, it } from 'vitest';
import { priceImages, priceSpeech } from '../billing/price-media.js';
import { countSpeechCharacters } from '../core/speech-request.js';
import { sniffImageType } from '../core/sniff-image-type.js';
import { GatewayError } from '../errors/gateway-error.js';
import { loadImageInput } from './load-image-input.js';
import { readDataUrl } from './read-data-url.js';

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
const options = { maxBytes: 1024, timeoutMs: 500 };

describe('media inputs', () => {
  it('reads base64 data URLs only', () => {
    expect(readDataUrl('data:image/png;base64,YWJj')).toEqual({ bytes: Buffer.from('abc'), mediaType: 'image/png' });
    expect(readDataUrl('data:image/png,abc')).toBeUndefined();
    expect(readDataUrl('data:image/png;base64,@@@')).toBeUndefined();
    expect(readDataUrl('https://example.com/a.png')).toBeUndefined();
  });

  it('sniffs PNG, JPEG, GIF and WebP by their magic bytes', () => {
    expect(sniffImageType(png)).toBe('image/png');
    expect(sniffImageType(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffImageType(Buffer.from('GIF89a'))).toBe('image/gif');
    expect(sniffImageType(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffImageType(Buffer.from('<svg>'))).toBeUndefined();
  });

  it('loads a data URL image, typed by its bytes, not by its label', async () => {
    const loaded = await loadImageInput(`data:image/jpeg;base64,${png.toString('base64')}`, 'images[0].image_url', options);
    expect(loaded).toEqual({ bytes: png, contentType: 'image/png' });
  });

  it.each([
    ['data:image/png;base64,PHN2Zz4=', 'is not a PNG'],
    [`data:image/png;base64,${Buffer.alloc(2000).toString('base64')}`, 'larger than 1024'],
    ['data:text/plain,hello', 'not a valid base64 data URL'],
    ['http://example.com/a.png', 'must use https'],
    ['https://127.0.0.1/a.png', 'private, loopback'],
    ['gopher://example.com/', 'must use https'],
  ])('refuses %s with a 400 naming the field', async (url, words) => {
    const error = await loadImageInput(url, 'images[0].image_url', options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'invalid_request', param: 'images[0].image_url' });
    expect((error as GatewayError).message).toContain(words);
  });

  it('prices speech per code point, rounding up to the nano-dollar, and images per image', () => {
    expect(countSpeechCharacters('añb👋')).toBe(4);
    // 15 USD per 1M characters is 15e9 nano-USD per 1M: 15 000 nano-USD per character.
    expect(priceSpeech({ prompt: 0n, completion: 0n, characters: 15_000_000_000n }, 3)).toBe(45_000n);
    expect(priceSpeech({ prompt: 0n, completion: 0n, characters: 1n }, 3)).toBe(1n);
    expect(priceImages({ prompt: 0n, completion: 0n, image: 40_000_000n }, 3)).toBe(120_000_000n);
    expect(priceImages({ prompt: 0n, completion: 0n, image: 40_000_000n, request: 5n }, 2)).toBe(80_000_005n);
  });
});
