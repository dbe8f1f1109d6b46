import type { CacheControl, ImagePart, ImageSource, TextPart, UserContentPart } from '../../core/content.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { isAbsent, readEnum, readObject, readString, rejectUnknownKeys, type JsonObject } from '../shared/read-json-fields.js';

/**
 * `cache_control` is OpenRouter's prompt-caching hint on content parts. Clients written for
 * OpenRouter send it on every long prompt; it changes no output. On text parts it becomes a
 * canonical cache breakpoint (honoured by Anthropic); on images it is accepted and not forwarded.
 */
const textPartKeys = new Set(['type', 'text', 'cache_control', 'prompt_cache_breakpoint']);
const imagePartKeys = new Set(['type', 'image_url', 'cache_control', 'prompt_cache_breakpoint']);
const imageUrlKeys = new Set(['url', 'detail']);
const imageDetails = ['auto', 'low', 'high'] as const;

/** User content: a string, or an array of `text` and `image_url` parts. */
export function decodeUserContent(value: unknown, field: string): UserContentPart[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  return readContentArray(value, field).map((entry, index) => decodeUserPart(entry, `${field}[${index}]`));
}

/** Content that may only hold text (system, developer, tool): a string or `text` parts. */
export function decodeTextContent(value: unknown, field: string): TextPart[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  return readContentArray(value, field).map((entry, index) => {
    const part = readObject(entry, `${field}[${index}]`);
    if (part.type !== 'text') throw unsupportedPartType(part, `${field}[${index}]`, 'only text parts are allowed here');
    return decodeTextPart(part, `${field}[${index}]`);
  });
}

export function readContentArray(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw invalidRequest(`'${field}' must be a string or an array of content parts`, field);
  return value;
}

function decodeUserPart(entry: unknown, field: string): UserContentPart {
  const part = readObject(entry, field);
  if (part.type === 'text') return decodeTextPart(part, field);
  if (part.type === 'image_url') return decodeImagePart(part, field);
  throw unsupportedPartType(part, field, 'only text and image_url parts are supported');
}

export function decodeTextPart(part: JsonObject, field: string): TextPart {
  rejectUnknownKeys(part, textPartKeys, field);
  const text: TextPart = { type: 'text', text: readString(part.text, `${field}.text`) };
  if (!isAbsent(part.cache_control)) text.cacheControl = decodeCacheControl(part.cache_control, `${field}.cache_control`);
  checkPromptCacheBreakpoint(part.prompt_cache_breakpoint, `${field}.prompt_cache_breakpoint`);
  return text;
}

/**
 * `prompt_cache_breakpoint: {mode: 'explicit'}` is OpenAI's own breakpoint on a content part: a
 * caching hint like `cache_control`, so its shape is checked and it is accepted. Only a body relayed
 * as sent to an OpenAI-wire provider carries it; the canonical request has no place for it.
 */
function checkPromptCacheBreakpoint(value: unknown, field: string): void {
  if (isAbsent(value)) return;
  const breakpoint = readObject(value, field);
  rejectUnknownKeys(breakpoint, new Set(['mode']), field);
  readEnum(breakpoint.mode, `${field}.mode`, ['explicit'] as const);
}

export function decodeCacheControl(value: unknown, field: string): CacheControl {
  const control = readObject(value, field);
  rejectUnknownKeys(control, new Set(['type', 'ttl']), field);
  readEnum(control.type, `${field}.type`, ['ephemeral'] as const);
  return isAbsent(control.ttl) ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: readEnum(control.ttl, `${field}.ttl`, ['5m', '1h'] as const) };
}

function decodeImagePart(part: JsonObject, field: string): ImagePart {
  rejectUnknownKeys(part, imagePartKeys, field);
  checkPromptCacheBreakpoint(part.prompt_cache_breakpoint, `${field}.prompt_cache_breakpoint`);
  const image = readObject(part.image_url, `${field}.image_url`);
  rejectUnknownKeys(image, imageUrlKeys, `${field}.image_url`);
  const source = decodeImageUrl(readString(image.url, `${field}.image_url.url`, { nonEmpty: true }), `${field}.image_url.url`);
  const result: ImagePart = { type: 'image', source };
  if (!isAbsent(image.detail)) result.detail = readEnum(image.detail, `${field}.image_url.detail`, imageDetails);
  return result;
}

/** An http(s) URL, or a `data:image/…;base64,…` URL whose bytes travel inline. */
export function decodeImageUrl(url: string, field: string): ImageSource {
  if (url.startsWith('data:')) return decodeDataUrl(url, field);
  if (url.startsWith('https://') || url.startsWith('http://')) return { kind: 'url', url };
  throw invalidRequest(`'${field}' must be an http(s) URL or a base64 data: URL`, field);
}

function decodeDataUrl(url: string, field: string): ImageSource {
  const comma = url.indexOf(',');
  const header = comma < 0 ? '' : url.slice('data:'.length, comma);
  const [mediaType = '', ...attributes] = header.split(';');
  const data = url.slice(comma + 1);
  if (comma < 0 || !attributes.includes('base64') || data === '') {
    throw invalidRequest(`'${field}' must be a base64 data URL (data:image/png;base64,…)`, field);
  }
  if (!mediaType.startsWith('image/')) throw invalidRequest(`'${field}' must be an image (data:image/…)`, field);
  return { kind: 'base64', mediaType, data };
}

function unsupportedPartType(part: JsonObject, field: string, reason: string) {
  if (typeof part.type !== 'string') return invalidRequest(`'${field}.type' must be a string`, `${field}.type`);
  return unsupportedParameter(`${field}.type`, `value '${part.type}' is not supported (${reason})`);
}
