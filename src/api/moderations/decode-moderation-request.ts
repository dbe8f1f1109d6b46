import type { Catalog } from '../../catalog/catalog.js';
import type { ModerationInput, ModerationRequest } from '../../core/moderation-request.js';
import type { RouteRequest } from '../../core/provider-preferences.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { decodeRouteRequest } from '../shared/decode-route-request.js';

const moderationFields = new Set(['model', 'models', 'provider', 'input']);

/**
 * Reads `POST /moderations` in OpenAI's shape: `input` is a string, an array of strings (one
 * result each), or an array of multi-modal parts — `{type: 'text', text}` and `{type:
 * 'image_url', image_url: {url}}` — classified together (one result). `model` defaults, as at
 * OpenAI, to the catalog's omni-moderation model (else its first moderation model).
 * https://platform.openai.com/docs/api-reference/moderations/create
 */
export function decodeModerationRequest(body: Record<string, unknown>, catalog: Catalog): { route: RouteRequest; request: ModerationRequest } {
  for (const name of Object.keys(body)) {
    if (!moderationFields.has(name)) throw unsupportedParameter(name);
  }
  const model = body.model === undefined || body.model === null ? defaultModerationModel(catalog) : body.model;
  const route = decodeRouteRequest({ ...body, model });
  return { route, request: decodeInput(body.input) };
}

function decodeInput(input: unknown): ModerationRequest {
  if (typeof input === 'string') {
    if (input === '') throw invalidRequest("'input' must not be empty", 'input');
    return { inputs: [{ type: 'text', text: input }] };
  }
  if (!Array.isArray(input) || input.length === 0) throw invalidRequest("'input' is required: a string, an array of strings, or an array of text and image_url parts", 'input');
  if (input.every((entry) => typeof entry === 'string')) {
    if (input.some((entry) => entry === '')) throw invalidRequest("'input' must not hold an empty string", 'input');
    return { inputs: input.map((text: string) => ({ type: 'text', text })) };
  }
  return { inputs: input.map(decodePart), multimodal: true };
}

function decodePart(part: unknown, index: number): ModerationInput {
  const field = `input[${index}]`;
  if (typeof part !== 'object' || part === null || Array.isArray(part)) throw invalidRequest(`'${field}' must be a string or an object with a type (text or image_url); strings and parts cannot be mixed`, field);
  const { type, text, image_url: image } = part as Record<string, unknown>;
  if (type === 'text') {
    if (typeof text !== 'string' || text === '') throw invalidRequest(`'${field}.text' is required`, `${field}.text`);
    return { type: 'text', text };
  }
  if (type === 'image_url') {
    const url = typeof image === 'object' && image !== null ? (image as Record<string, unknown>).url : undefined;
    if (typeof url !== 'string' || !/^(https?:\/\/|data:image\/)/i.test(url)) {
      throw invalidRequest(`'${field}.image_url.url' must be an http(s) URL or a data:image/… URL`, `${field}.image_url.url`);
    }
    return { type: 'image_url', url };
  }
  throw invalidRequest(`'${field}.type' must be text or image_url`, `${field}.type`);
}

/** OpenAI's default, `omni-moderation-latest`, as the catalog names it; else its first moderation model. */
export function defaultModerationModel(catalog: Catalog): string | undefined {
  const moderation = catalog.models.filter((model) => model.outputModalities.includes('moderation'));
  return (moderation.find((model) => model.id.endsWith('/omni-moderation-latest')) ?? moderation.find((model) => model.id.includes('omni-moderation')) ?? moderation[0])?.id;
}
