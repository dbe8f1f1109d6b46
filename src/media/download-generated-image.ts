import type { AppContext } from '../app-context.js';
import type { GeneratedImage, ImageInput } from '../core/image-request.js';
import { sniffImageType } from '../core/sniff-image-type.js';
import { fetchPublicUrl, FetchRefusedError } from '../outbound/fetch-public-url.js';
import type { CallContext } from '../providers/provider-adapter.js';
import { createProtocolError } from '../providers/shared/create-protocol-error.js';
import { readUpstreamBytes, sendUpstream } from '../providers/shared/send-upstream.js';
import { mediaSettingsOf } from './media-settings.js';
import { readDataUrl } from './read-data-url.js';

const maxGeneratedImageBytes = 64 * 1024 * 1024;

/**
 * The bytes of an image a provider made. A URL on the provider's own origin (configured by the
 * operator) is read through the provider's connection pool, without credentials; any other URL
 * (a CDN such as fal.media) goes through the SSRF guard like a client's URL would.
 * Failures are `UpstreamError`s: the provider's answer was unusable.
 */
export async function downloadGeneratedImage(context: AppContext, image: GeneratedImage, call: CallContext): Promise<ImageInput> {
  const providerId = call.provider.id;
  let bytes: Buffer;
  if ('bytes' in image) {
    bytes = image.bytes;
  } else if (image.url.startsWith('data:')) {
    const decoded = readDataUrl(image.url);
    if (!decoded) throw createProtocolError(providerId, 'sent an image data URL that is not base64');
    bytes = decoded.bytes;
  } else if (sameOrigin(image.url, call.provider.baseUrl)) {
    const response = await sendUpstream({ ...call, provider: { ...call.provider, headers: {} } }, image.url, { method: 'GET', headers: { accept: 'image/*' } });
    bytes = await readUpstreamBytes(providerId, response, maxGeneratedImageBytes);
  } else {
    const settings = mediaSettingsOf(context);
    try {
      bytes = (await fetchPublicUrl(image.url, { maxBytes: maxGeneratedImageBytes, timeoutMs: Math.max(settings.fetchTimeoutMs, 30_000), signal: call.signal })).bytes;
    } catch (error) {
      if (!(error instanceof FetchRefusedError)) throw error;
      throw createProtocolError(providerId, `sent an image URL that could not be downloaded: ${error.message}`);
    }
  }
  const contentType = sniffImageType(bytes);
  if (!contentType) throw createProtocolError(providerId, 'sent an image that is not a PNG, JPEG, WebP or GIF');
  return { bytes, contentType };
}

function sameOrigin(url: string, baseUrl: string): boolean {
  try {
    return new URL(url).origin === new URL(baseUrl).origin;
  } catch {
    return false;
  }
}
