import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { countWords } from './count-tokens.js';
import { sendMediaJson } from './media-response.js';

/**
 * OpenAI's embedding models and their native sizes; only the text-embedding-3 family takes
 * `dimensions` (https://platform.openai.com/docs/guides/embeddings#embedding-models). Other
 * model names are simulated as shortenable 1,536-dimension models.
 */
const openaiEmbeddingModels: Record<string, { size: number; shortenable: boolean }> = {
  'text-embedding-3-small': { size: 1536, shortenable: true },
  'text-embedding-3-large': { size: 3072, shortenable: true },
  'text-embedding-ada-002': { size: 1536, shortenable: false },
};
const defaultModel = { size: 1536, shortenable: true };

/** OpenAI's limit: at most 2,048 inputs per request (https://platform.openai.com/docs/api-reference/embeddings/create). */
export const openaiMaxEmbeddingInputs = 2048;

/**
 * OpenAI `POST /embeddings` (Azure's too): `input` a string, strings, token ids or arrays of
 * them; `dimensions` (text-embedding-3 only), `encoding_format` `float` (default) or `base64`
 * (little-endian float32). Each vector is unit-length and a pure function of its input and size,
 * so the same text always embeds the same. Usage counts one token per word (the simulator's
 * tokenizer) and one per token id. Answers a problem (for a 400) or undefined when it answered.
 */
export function answerOpenAiEmbeddings(response: ServerResponse, body: Record<string, unknown>, deployment?: string): string | undefined {
  const model = deployment ?? body.model;
  if (typeof model !== 'string' || !model) return "you must provide a model parameter";
  const inputs = readInputs(body.input);
  if (typeof inputs === 'string') return inputs;
  const known = openaiEmbeddingModels[model] ?? defaultModel;
  let size = known.size;
  const { dimensions, encoding_format: format = 'float' } = body;
  if (dimensions !== undefined) {
    if (!known.shortenable) return 'This model does not support specifying dimensions.';
    if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > known.size) return `Invalid value for 'dimensions': must be from 1 to ${known.size}.`;
    size = dimensions;
  }
  if (format !== 'float' && format !== 'base64') return `Invalid value for 'encoding_format': ${String(format)}. Supported values are: 'float' and 'base64'.`;
  let tokens = 0;
  const data = inputs.map((input, index) => {
    tokens += typeof input === 'string' ? countWords(input) : input.length;
    const vector = embeddingOf(typeof input === 'string' ? input : `tokens:${input.join(',')}`, size);
    return { object: 'embedding', index, embedding: format === 'base64' ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64') : Array.from(vector) };
  });
  sendMediaJson(response, 200, { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
  return undefined;
}

function readInputs(input: unknown): Array<string | number[]> | string {
  const invalid = "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.";
  if (typeof input === 'string') return input === '' ? invalid : [input];
  if (!Array.isArray(input) || input.length === 0) return invalid;
  if (input.every((entry) => Number.isInteger(entry))) return [input as number[]];
  if (input.length > openaiMaxEmbeddingInputs) return `'$.input' is invalid: at most ${openaiMaxEmbeddingInputs} inputs per request.`;
  for (const entry of input) {
    if (typeof entry === 'string' && entry !== '') continue;
    if (Array.isArray(entry) && entry.length > 0 && entry.every((token) => Number.isInteger(token))) continue;
    return invalid;
  }
  return input as Array<string | number[]>;
}

/**
 * A unit vector of `size` float32s seeded by the text: SHA-256 of the text seeds a xorshift
 * generator. float32 so that `float` and `base64` answers carry the same numbers.
 */
export function embeddingOf(text: string, size: number): Float32Array {
  const seed = createHash('sha256').update(text).digest();
  let state = seed.readUInt32LE(0) || 1;
  const vector = new Float32Array(size);
  let norm = 0;
  for (let index = 0; index < size; index += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const value = (state >>> 0) / 0x1_0000_0000 - 0.5;
    vector[index] = value;
    norm += value * value;
  }
  const scale = 1 / Math.sqrt(norm || 1);
  for (let index = 0; index < size; index += 1) vector[index] *= scale;
  return vector;
}

/** The text inputs of an embeddings request, joined, where a `[[sim:…]]` directive may be written. */
export function directiveTextOf(inputs: unknown[]): string {
  return inputs.filter((entry): entry is string => typeof entry === 'string').join('\n');
}
