import type { EmbeddingRequest, EmbeddingTask } from '../../core/embedding-request.js';
import type { RouteRequest } from '../../core/provider-preferences.js';
import { invalidRequest } from '../../errors/gateway-error.js';
import { readCamelCase } from '../../wire/gemini/read-camel-case.js';
import { maxEmbeddingInputs } from '../embeddings/decode-embedding-request.js';
import { decodeRouteRequest } from '../shared/decode-route-request.js';
import { isAbsent, readArray, readInteger, readObject, readString, rejectUnknownKeys, type JsonObject } from '../shared/read-json-fields.js';

/** Google's task types (https://ai.google.dev/api/embeddings#tasktype); `TASK_TYPE_UNSPECIFIED` is the model's default. */
const taskTypes: Record<string, EmbeddingTask | undefined> = {
  TASK_TYPE_UNSPECIFIED: undefined,
  RETRIEVAL_QUERY: 'retrieval_query',
  RETRIEVAL_DOCUMENT: 'retrieval_document',
  SEMANTIC_SIMILARITY: 'semantic_similarity',
  CLASSIFICATION: 'classification',
  CLUSTERING: 'clustering',
  QUESTION_ANSWERING: 'question_answering',
  FACT_VERIFICATION: 'fact_verification',
  CODE_RETRIEVAL_QUERY: 'code_retrieval_query',
};

/** An `EmbedContentRequest`'s own fields (https://ai.google.dev/api/embeddings#EmbedContentRequest). */
const embedFields = new Set(['model', 'content', 'taskType', 'title', 'outputDimensionality']);
/** Routing, as the text style takes it beside `contents`. */
const routeFields = new Set(['models', 'provider']);
const contentFields = new Set(['parts', 'role']);

interface OneEmbedding {
  text: string;
  task?: EmbeddingTask;
  title?: string;
  dimensions?: number;
}

/**
 * `models/{model}:embedContent` (`{content, taskType?, title?, outputDimensionality?}`) as one
 * input, in either of Google's spellings. The model is the URL's; a `model` in the body must name
 * the same one (`models/` prefix optional).
 */
export function decodeEmbedContent(input: JsonObject, model: string): { route: RouteRequest; request: EmbeddingRequest } {
  const body = readCamelCase(input);
  rejectUnknownKeys(body, new Set([...embedFields, ...routeFields]));
  const one = decodeOne(body, model, '');
  return { route: decodeRouteRequest({ model, models: body.models, provider: body.provider }), request: requestOf([one], []) };
}

/**
 * `models/{model}:batchEmbedContents` (`{requests: [EmbedContentRequest]}`) as one request of
 * several inputs, embedded and charged together. Each entry's `model` (which Google requires and
 * `@google/genai` sends) must be the URL's; `taskType`, `title` and `outputDimensionality` must be
 * the same in every entry — as Google's SDKs send them — since the inputs go out as one call.
 * Google takes at most 100 entries; the gateway takes as many as `/embeddings` does and splits
 * them into calls each provider accepts.
 */
export function decodeBatchEmbedContents(input: JsonObject, model: string): { route: RouteRequest; request: EmbeddingRequest } {
  const body = readCamelCase(input);
  rejectUnknownKeys(body, new Set(['requests', ...routeFields]));
  const requests = readArray(body.requests, 'requests');
  if (requests.length === 0) throw invalidRequest("'requests' must not be empty", 'requests');
  if (requests.length > maxEmbeddingInputs) throw invalidRequest(`'requests' may hold at most ${maxEmbeddingInputs} entries (it holds ${requests.length})`, 'requests');
  const ones = requests.map((entry, index) => {
    const field = `requests[${index}]`;
    const request = readObject(entry, field);
    rejectUnknownKeys(request, embedFields, field);
    return decodeOne(request, model, `${field}.`);
  });
  return { route: decodeRouteRequest({ model, models: body.models, provider: body.provider }), request: requestOf(ones, ones.map((_, index) => `requests[${index}].`)) };
}

function decodeOne(request: JsonObject, model: string, prefix: string): OneEmbedding {
  if (!isAbsent(request.model)) {
    const named = readString(request.model, `${prefix}model`).replace(/^models\//, '');
    if (named !== model) throw invalidRequest(`'${prefix}model' (${named}) differs from the model of the URL (${model})`, `${prefix}model`);
  }
  const one: OneEmbedding = { text: decodeText(request.content, `${prefix}content`) };
  if (!isAbsent(request.taskType)) {
    const name = readString(request.taskType, `${prefix}taskType`);
    if (!(name in taskTypes)) throw invalidRequest(`'${prefix}taskType' must be one of ${Object.keys(taskTypes).join(', ')}`, `${prefix}taskType`);
    one.task = taskTypes[name];
  }
  if (!isAbsent(request.title)) one.title = readString(request.title, `${prefix}title`);
  if (!isAbsent(request.outputDimensionality)) one.dimensions = readInteger(request.outputDimensionality, `${prefix}outputDimensionality`, 1);
  return one;
}

/** A `Content` of text parts, as one input (its parts joined by a space); Gemini's embedding models take text only. */
function decodeText(value: unknown, field: string): string {
  const content = readObject(value, field);
  rejectUnknownKeys(content, contentFields, field);
  const parts = readArray(content.parts, `${field}.parts`);
  if (parts.length === 0) throw invalidRequest(`'${field}.parts' must not be empty`, `${field}.parts`);
  const texts = parts.map((part, index) => {
    const partField = `${field}.parts[${index}]`;
    const entry = readObject(part, partField);
    rejectUnknownKeys(entry, new Set(['text']), partField);
    return readString(entry.text, `${partField}.text`);
  });
  const text = texts.join(' ');
  if (text.trim() === '') throw invalidRequest(`'${field}' must hold some text`, field);
  return text;
}

/** One canonical request; the settings every entry shares (an entry that differs is refused, naming it). */
function requestOf(ones: OneEmbedding[], prefixes: string[]): EmbeddingRequest {
  const [first] = ones;
  ones.forEach((one, index) => {
    for (const [name, key] of [['taskType', 'task'], ['title', 'title'], ['outputDimensionality', 'dimensions']] as const) {
      if (one[key] !== first[key]) {
        const field = `${prefixes[index]}${name}`;
        throw invalidRequest(`'${field}' must be the same in every request of one batch (the batch is embedded as one call)`, field);
      }
    }
  });
  const request: EmbeddingRequest = { inputs: ones.map((one) => one.text) };
  if (first.task !== undefined) request.task = first.task;
  if (first.title !== undefined) request.title = first.title;
  if (first.dimensions !== undefined) request.dimensions = first.dimensions;
  return request;
}
