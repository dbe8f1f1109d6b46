import type { AssistantContentPart, Message, SystemMessage, ToolResultMessage, UserContentPart } from '../../core/content.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { isAbsent, readArray, readBoolean, readObject, readString, type JsonObject } from '../shared/read-json-fields.js';
import { readGeminiSignature } from './encode-signature.js';

/** Part fields the decoder reads; any other is refused by name. `mediaResolution` and `partMetadata` are hints. */
const partKeys = new Set(['text', 'thought', 'thoughtSignature', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'mediaResolution', 'partMetadata']);

/** `systemInstruction`: a `Content` whose text parts are the system prompt (a bare string is read too). */
export function decodeSystemInstruction(value: unknown): SystemMessage[] {
  if (typeof value === 'string') return value === '' ? [] : [{ role: 'system', content: value }];
  const content = readObject(value, 'systemInstruction');
  const texts = readArray(content.parts, 'systemInstruction.parts').map((part, index) => {
    const path = `systemInstruction.parts[${index}]`;
    const object = readObject(part, path);
    for (const key of Object.keys(object)) if (key !== 'text') throw unsupportedParameter(`${path}.${key}`, 'is not supported: a system instruction takes text parts');
    return readString(object.text, `${path}.text`);
  });
  const text = texts.join('\n');
  return text === '' ? [] : [{ role: 'system', content: text }];
}

/**
 * `contents` → canonical messages. A `model` turn's parts become assistant content: thought parts
 * reasoning, a signature on another part the signature of the reasoning just before it (as the
 * gemini adapter decodes Gemini's answers). A `user` (or `function`) turn's `functionResponse`
 * parts become tool messages, placed before the rest of that turn.
 *
 * Gemini function calls carry an id only when the model gave one: a call without one gets
 * `call_<n>` (its place among the conversation's calls), and a response answers the call of its
 * id, or else the earliest unanswered call of its name, as Gemini itself matches them.
 */
export function decodeContents(value: unknown): Message[] {
  const contents = readArray(value, 'contents');
  if (contents.length === 0) throw invalidRequest("'contents' must not be empty", 'contents');
  const messages: Message[] = [];
  const calls = { count: 0, unanswered: [] as Array<{ id: string; name: string }> };
  contents.forEach((entry, turn) => {
    const path = `contents[${turn}]`;
    const content = readObject(entry, path);
    const role = isAbsent(content.role) ? 'user' : readString(content.role, `${path}.role`);
    const parts = readArray(content.parts, `${path}.parts`).map((part, index) => readObject(part, `${path}.parts[${index}]`));
    if (role === 'model') {
      // A model turn with nothing in it (an empty answer sent back) would be refused by the providers that need content.
      const content = decodeModelParts(parts, path, calls);
      if (content.length > 0) messages.push({ role: 'assistant', content });
    }
    else if (role === 'user' || role === 'function') messages.push(...decodeUserParts(parts, path, calls));
    else throw invalidRequest(`'${path}.role' must be user or model`, `${path}.role`);
  });
  return messages;
}

function checkPartKeys(part: JsonObject, path: string): void {
  for (const key of Object.keys(part)) {
    if (!partKeys.has(key)) throw unsupportedParameter(`${path}.${key}`, `is not supported: the gateway takes text, inlineData and fileData images, functionCall and functionResponse parts`);
  }
}

function decodeModelParts(parts: JsonObject[], path: string, calls: { count: number; unanswered: Array<{ id: string; name: string }> }): AssistantContentPart[] {
  const content: AssistantContentPart[] = [];
  parts.forEach((part, index) => {
    const at = `${path}.parts[${index}]`;
    checkPartKeys(part, at);
    const signature = isAbsent(part.thoughtSignature) ? undefined : readGeminiSignature(readString(part.thoughtSignature, `${at}.thoughtSignature`));
    if (!isAbsent(part.thought) && readBoolean(part.thought, `${at}.thought`)) {
      content.push({ type: 'reasoning', text: isAbsent(part.text) ? '' : readString(part.text, `${at}.text`), ...(signature && { signature }) });
      return;
    }
    if (signature) {
      const last = content.at(-1);
      if (last?.type === 'reasoning' && !last.signature) last.signature = signature;
      else content.push({ type: 'reasoning', text: '', signature });
    }
    if (!isAbsent(part.functionCall)) {
      const call = readObject(part.functionCall, `${at}.functionCall`);
      const name = readString(call.name, `${at}.functionCall.name`, { nonEmpty: true });
      const id = isAbsent(call.id) ? `call_${calls.count}` : readString(call.id, `${at}.functionCall.id`, { nonEmpty: true });
      calls.count += 1;
      calls.unanswered.push({ id, name });
      const args = isAbsent(call.args) ? {} : readObject(call.args, `${at}.functionCall.args`);
      content.push({ type: 'tool-call', id, name, arguments: JSON.stringify(args) });
    } else if (!isAbsent(part.text)) {
      const text = readString(part.text, `${at}.text`);
      if (text !== '') content.push({ type: 'text', text });
    } else if (!isAbsent(part.inlineData) || !isAbsent(part.fileData) || !isAbsent(part.functionResponse)) {
      throw invalidRequest(`'${at}' must be a text or functionCall part: a model turn carries no images or function responses`, at);
    }
  });
  return content;
}

function decodeUserParts(parts: JsonObject[], path: string, calls: { unanswered: Array<{ id: string; name: string }> }): Message[] {
  const results: ToolResultMessage[] = [];
  const content: UserContentPart[] = [];
  parts.forEach((part, index) => {
    const at = `${path}.parts[${index}]`;
    checkPartKeys(part, at);
    if (!isAbsent(part.functionResponse)) results.push(decodeFunctionResponse(readObject(part.functionResponse, `${at}.functionResponse`), `${at}.functionResponse`, calls));
    else if (!isAbsent(part.inlineData)) content.push(decodeInlineData(readObject(part.inlineData, `${at}.inlineData`), `${at}.inlineData`));
    else if (!isAbsent(part.fileData)) content.push(decodeFileData(readObject(part.fileData, `${at}.fileData`), `${at}.fileData`));
    else if (!isAbsent(part.functionCall)) throw invalidRequest(`'${at}.functionCall' belongs in a model turn`, `${at}.functionCall`);
    else if (!isAbsent(part.text) && !(part.thought === true)) {
      const text = readString(part.text, `${at}.text`);
      if (text !== '') content.push({ type: 'text', text });
    }
  });
  const messages: Message[] = [...results];
  if (content.length > 0) messages.push({ role: 'user', content });
  return messages;
}

/**
 * The response object goes on as its JSON text (every protocol's tool result is text); Gemini's
 * `{error: …}` convention marks a failed call.
 */
function decodeFunctionResponse(response: JsonObject, path: string, calls: { unanswered: Array<{ id: string; name: string }> }): ToolResultMessage {
  for (const key of Object.keys(response)) {
    if (!['id', 'name', 'response', 'willContinue', 'scheduling'].includes(key)) throw unsupportedParameter(`${path}.${key}`, 'is not supported: a function response carries a JSON object');
  }
  const name = readString(response.name, `${path}.name`, { nonEmpty: true });
  const result = isAbsent(response.response) ? {} : readObject(response.response, `${path}.response`);
  let id = isAbsent(response.id) ? undefined : readString(response.id, `${path}.id`, { nonEmpty: true });
  // An id the client made up itself (Gemini CLI names calls that came without one) answers by name.
  let at = id === undefined ? -1 : calls.unanswered.findIndex((call) => call.id === id);
  if (at < 0) at = calls.unanswered.findIndex((call) => call.name === name);
  if (at >= 0) {
    id = calls.unanswered[at].id;
    calls.unanswered.splice(at, 1);
  } else if (id === undefined) {
    throw invalidRequest(`'${path}' answers no earlier functionCall named '${name}'`, path);
  }
  const failed = Object.keys(result).length === 1 && 'error' in result;
  return { role: 'tool', toolCallId: id, toolName: name, content: [{ type: 'text', text: JSON.stringify(result) }], ...(failed && { isError: true }) };
}

/** Only images: the text styles take no audio, video or documents. */
function decodeInlineData(blob: JsonObject, path: string): UserContentPart {
  const mimeType = readString(blob.mimeType, `${path}.mimeType`, { nonEmpty: true });
  if (!mimeType.startsWith('image/')) throw unsupportedParameter(`${path}.mimeType`, `is not supported: '${mimeType}' is not an image; the gateway takes image inputs only`);
  return { type: 'image', source: { kind: 'base64', mediaType: mimeType, data: readString(blob.data, `${path}.data`, { nonEmpty: true }) } };
}

/** A URL the provider fetches (Gemini's Files API URIs are Google's own and reach only Gemini). */
function decodeFileData(file: JsonObject, path: string): UserContentPart {
  const uri = readString(file.fileUri, `${path}.fileUri`, { nonEmpty: true });
  const mimeType = isAbsent(file.mimeType) ? undefined : readString(file.mimeType, `${path}.mimeType`);
  if (mimeType !== undefined && !mimeType.startsWith('image/')) throw unsupportedParameter(`${path}.mimeType`, `is not supported: '${mimeType}' is not an image; the gateway takes image inputs only`);
  if (!/^https?:\/\//.test(uri)) throw unsupportedParameter(`${path}.fileUri`, 'is not supported: send an http(s) URL or the image as inlineData');
  return { type: 'image', source: { kind: 'url', url: uri } };
}
