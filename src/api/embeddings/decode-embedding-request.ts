import type { EmbeddingInput, EmbeddingRequest } from '../../core/embedding-request.js';
import type { RouteRequest } from '../../core/provider-preferences.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { decodeRouteRequest } from '../shared/decode-route-request.js';

const embeddingFields = new Set(['model', 'models', 'provider', 'input', 'dimensions', 'encoding_format', 'user']);

/**
 * The most inputs one request may carry. OpenAI takes 2,048 per call; the gateway splits a larger
 * request into calls each provider accepts, up to four of OpenAI's.
 */
export const maxEmbeddingInputs = 8192;

export type EmbeddingEncoding = 'float' | 'base64';

/**
 * Reads `POST /embeddings` in OpenAI's shape: `input` is a string, an array of strings, an array
 * of token ids, or an array of such arrays (https://platform.openai.com/docs/api-reference/embeddings/create).
 * Routing fields (`models`, `provider`) as for text. Anything else is refused naming the field.
 */
export function decodeEmbeddingRequest(body: Record<string, unknown>): { route: RouteRequest; request: EmbeddingRequest; encoding: EmbeddingEncoding } {
  for (const name of Object.keys(body)) {
    if (!embeddingFields.has(name)) throw unsupportedParameter(name);
  }
  const route = decodeRouteRequest(body);
  const { dimensions, encoding_format: encoding = 'float', user } = body;
  const request: EmbeddingRequest = { inputs: decodeInputs(body.input) };
  if (dimensions !== undefined && dimensions !== null) {
    if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1) throw invalidRequest("'dimensions' must be a positive integer", 'dimensions');
    request.dimensions = dimensions;
  }
  if (encoding !== null && encoding !== 'float' && encoding !== 'base64') throw invalidRequest("'encoding_format' must be one of float, base64", 'encoding_format');
  if (user !== undefined && user !== null) {
    if (typeof user !== 'string') throw invalidRequest("'user' must be a string", 'user');
    request.user = user;
  }
  return { route, request, encoding: encoding ?? 'float' };
}

function decodeInputs(input: unknown): EmbeddingInput[] {
  if (typeof input === 'string') {
    if (input.length === 0) throw invalidRequest("'input' must not be an empty string", 'input');
    return [input];
  }
  if (!Array.isArray(input)) throw invalidRequest("'input' is required: a string, an array of strings, an array of token ids or an array of token-id arrays", 'input');
  if (input.length === 0) throw invalidRequest("'input' must not be an empty array", 'input');
  // An array of numbers is one input given as tokens.
  if (typeof input[0] === 'number') return [decodeTokens(input, 'input')];
  if (input.length > maxEmbeddingInputs) throw invalidRequest(`'input' may hold at most ${maxEmbeddingInputs} inputs (it holds ${input.length})`, 'input');
  return input.map((entry, index) => {
    const field = `input[${index}]`;
    if (typeof entry === 'string') {
      if (entry.length === 0) throw invalidRequest(`'${field}' must not be an empty string`, field);
      return entry;
    }
    if (Array.isArray(entry)) return decodeTokens(entry, field);
    throw invalidRequest(`'${field}' must be a string or an array of token ids`, field);
  });
}

function decodeTokens(tokens: unknown[], field: string): number[] {
  if (tokens.length === 0) throw invalidRequest(`'${field}' must not be an empty array of tokens`, field);
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index];
    if (typeof token !== 'number' || !Number.isInteger(token) || token < 0) throw invalidRequest(`'${field}[${index}]' must be a token id (a non-negative integer)`, `${field}[${index}]`);
  }
  return tokens as number[];
}
