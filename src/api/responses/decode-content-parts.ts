import type { ImagePart, ImageSource, TextPart, UserContentPart } from '../../core/content.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { isAbsent, readArray, readEnum, readObject, rejectUnknownKeys } from '../shared/read-json-fields.js';
import { expectString } from './validate-shape.js';

const inputTextKeys = new Set(['type', 'text']);
const inputImageKeys = new Set(['type', 'image_url', 'file_id', 'detail']);
// `annotations` and `logprobs` come along when a client sends a previous output item back, and
// `parsed` when that item came from the SDK's stream helper (it derives it from `text`).
const outputTextKeys = new Set(['type', 'text', 'annotations', 'logprobs', 'parsed']);
const refusalKeys = new Set(['type', 'refusal']);

/** Content of a user message or of a function call's output: text and images. */
export function decodeUserContent(content: unknown, path: string): UserContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return readArray(content, path).map((entry, index) => {
    const partPath = `${path}[${index}]`;
    const part = readObject(entry, partPath);
    if (part.type === 'input_text') return decodeInputText(part, partPath);
    if (part.type === 'input_image') return decodeInputImage(part, partPath);
    throw unsupportedPartType(part.type, partPath, 'input_text, input_image');
  });
}

/** System and developer messages are plain text; canonical system content is one string. */
export function decodeSystemContent(content: unknown, path: string): string {
  if (typeof content === 'string') return content;
  return readArray(content, path)
    .map((entry, index) => {
      const partPath = `${path}[${index}]`;
      const part = readObject(entry, partPath);
      if (part.type !== 'input_text') throw unsupportedPartType(part.type, partPath, 'input_text');
      return decodeInputText(part, partPath).text;
    })
    .join('\n');
}

/** An assistant turn sent back as history: its text, whichever part type carried it. */
export function decodeAssistantContent(content: unknown, path: string): TextPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return readArray(content, path).map((entry, index) => {
    const partPath = `${path}[${index}]`;
    const part = readObject(entry, partPath);
    if (part.type === 'output_text') {
      rejectUnknownKeys(part, outputTextKeys, partPath);
      return { type: 'text', text: expectString(part.text, `${partPath}.text`) };
    }
    if (part.type === 'input_text') return decodeInputText(part, partPath);
    if (part.type === 'refusal') {
      rejectUnknownKeys(part, refusalKeys, partPath);
      return { type: 'text', text: expectString(part.refusal, `${partPath}.refusal`) };
    }
    throw unsupportedPartType(part.type, partPath, 'output_text, input_text, refusal');
  });
}

function decodeInputText(part: Record<string, unknown>, path: string): TextPart {
  rejectUnknownKeys(part, inputTextKeys, path);
  return { type: 'text', text: expectString(part.text, `${path}.text`) };
}

function decodeInputImage(part: Record<string, unknown>, path: string): ImagePart {
  rejectUnknownKeys(part, inputImageKeys, path);
  if (!isAbsent(part.file_id)) {
    throw unsupportedParameter(`${path}.file_id`, 'is not supported; this gateway has no Files API, send the image as image_url (https or data URL)');
  }
  const url = expectString(part.image_url, `${path}.image_url`);
  const image: ImagePart = { type: 'image', source: decodeImageSource(url, `${path}.image_url`) };
  if (!isAbsent(part.detail)) image.detail = readEnum(part.detail, `${path}.detail`, ['auto', 'low', 'high'] as const);
  return image;
}

const dataUrlPattern = /^data:([^;,]+);base64,(.*)$/s;

function decodeImageSource(url: string, path: string): ImageSource {
  const data = dataUrlPattern.exec(url);
  if (data) return { kind: 'base64', mediaType: data[1], data: data[2] };
  if (url.startsWith('https://') || url.startsWith('http://')) return { kind: 'url', url };
  throw invalidRequest(`'${path}' must be an http(s) URL or a base64 data URL`, path);
}

function unsupportedPartType(type: unknown, path: string, allowed: string): Error {
  if (typeof type !== 'string') return invalidRequest(`'${path}.type' is required`, `${path}.type`);
  return unsupportedParameter(`${path}.type`, `'${type}' is not supported here; expected ${allowed}`);
}
