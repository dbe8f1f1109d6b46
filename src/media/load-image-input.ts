import type { ImageInput } from '../core/image-request.js';
import { sniffImageType } from '../core/sniff-image-type.js';
import { invalidRequest } from '../errors/gateway-error.js';
import { fetchPublicUrl, FetchRefusedError, type FetchPublicUrlOptions } from '../outbound/fetch-public-url.js';
import { readDataUrl } from './read-data-url.js';
import type { CancelSignal } from '../core/cancel-signal.js';

export interface LoadImageOptions {
  maxBytes: number;
  timeoutMs: number;
  signal?: CancelSignal;
  /** Overrides for the fetcher (tests). */
  fetch?: Partial<FetchPublicUrlOptions>;
}

/**
 * An `image_url` input as bytes: a `data:` URL is decoded, an `https:` URL fetched with the SSRF
 * guard. Either way the bytes must be a PNG, JPEG, WebP or GIF (by their magic bytes). Failures
 * are 400 naming the field.
 */
export async function loadImageInput(url: string, field: string, options: LoadImageOptions): Promise<ImageInput> {
  let bytes: Buffer;
  if (url.startsWith('data:')) {
    const decoded = readDataUrl(url);
    if (!decoded) throw invalidRequest(`'${field}' is not a valid base64 data URL`, field);
    bytes = decoded.bytes;
    if (bytes.length > options.maxBytes) throw invalidRequest(`'${field}' is larger than ${options.maxBytes} bytes`, field);
  } else {
    try {
      bytes = (await fetchPublicUrl(url, { maxBytes: options.maxBytes, timeoutMs: options.timeoutMs, signal: options.signal, ...options.fetch })).bytes;
    } catch (error) {
      if (error instanceof FetchRefusedError) throw invalidRequest(`'${field}' could not be fetched: the URL ${error.message}`, field);
      throw error;
    }
  }
  const contentType = sniffImageType(bytes);
  if (!contentType) throw invalidRequest(`'${field}' is not a PNG, JPEG, WebP or GIF image`, field);
  return { bytes, contentType };
}
