import type { ImagePart, TextPart, UserContentPart } from '../../core/content.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import {
  isAbsent, isJsonObject, readEnum, readObject, readString, rejectUnknownKeys, type JsonObject,
} from '../shared/read-json-fields.js';

/**
 * `cache_control` marks a prompt-cache breakpoint. Anthropic clients (Claude Code above all)
 * put it on system, message and tool blocks in nearly every request; it is a hint that changes
 * no output, so it is accepted (and its shape checked) but not forwarded: the canonical model
 * has no cache breakpoints yet, and providers other than Anthropic cache automatically.
 */
const textKeys = new Set(['type', 'text', 'cache_control', 'citations']);
const imageKeys = new Set(['type', 'source', 'cache_control']);
const imageMediaTypes = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;

export function checkCacheControl(value: unknown, field: string): void {
  if (isAbsent(value)) return;
  const cache = readObject(value, field);
  rejectUnknownKeys(cache, new Set(['type', 'ttl']), field);
  readEnum(cache.type, `${field}.type`, ['ephemeral']);
  if (!isAbsent(cache.ttl)) readEnum(cache.ttl, `${field}.ttl`, ['5m', '1h']);
}

export function decodeTextBlock(block: JsonObject, field: string): TextPart {
  rejectUnknownKeys(block, textKeys, field);
  checkCacheControl(block.cache_control, `${field}.cache_control`);
  // Citations sent back from an earlier answer would need the cited documents, which we do not accept.
  if (Array.isArray(block.citations) && block.citations.length > 0) throw unsupportedParameter(`${field}.citations`);
  if (!isAbsent(block.citations) && !Array.isArray(block.citations)) throw invalidRequest(`'${field}.citations' must be an array`, `${field}.citations`);
  return { type: 'text', text: readString(block.text, `${field}.text`) };
}

export function decodeImageBlock(block: JsonObject, field: string): ImagePart {
  rejectUnknownKeys(block, imageKeys, field);
  checkCacheControl(block.cache_control, `${field}.cache_control`);
  const source = readObject(block.source, `${field}.source`);
  if (source.type === 'base64') {
    rejectUnknownKeys(source, new Set(['type', 'media_type', 'data']), `${field}.source`);
    return {
      type: 'image',
      source: {
        kind: 'base64',
        mediaType: readEnum(source.media_type, `${field}.source.media_type`, imageMediaTypes),
        data: readString(source.data, `${field}.source.data`, { nonEmpty: true }),
      },
    };
  }
  if (source.type === 'url') {
    rejectUnknownKeys(source, new Set(['type', 'url']), `${field}.source`);
    const url = readString(source.url, `${field}.source.url`, { nonEmpty: true });
    if (!url.startsWith('https://') && !url.startsWith('http://')) throw invalidRequest(`'${field}.source.url' must be an http(s) URL`, `${field}.source.url`);
    return { type: 'image', source: { kind: 'url', url } };
  }
  throw unsupportedBlockType(source, `${field}.source`, 'only base64 and url image sources');
}

/** A `tool_result`'s `content`: a string, or `text` and `image` blocks. */
export function decodeToolResultContent(value: unknown, field: string): UserContentPart[] {
  if (isAbsent(value)) return [];
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  if (!Array.isArray(value)) throw invalidRequest(`'${field}' must be a string or an array of content blocks`, field);
  return value.map((entry, index) => {
    const blockField = `${field}[${index}]`;
    const block = readObject(entry, blockField);
    if (block.type === 'text') return decodeTextBlock(block, blockField);
    if (block.type === 'image') return decodeImageBlock(block, blockField);
    throw unsupportedBlockType(block, blockField, 'only text and image blocks in a tool result');
  });
}

export function unsupportedBlockType(block: JsonObject, field: string, reason: string) {
  if (!isJsonObject(block) || typeof block.type !== 'string') return invalidRequest(`'${field}.type' must be a string`, `${field}.type`);
  return unsupportedParameter(`${field}.type`, `value '${block.type}' is not supported (${reason})`);
}
