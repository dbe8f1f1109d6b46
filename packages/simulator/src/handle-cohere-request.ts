import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { countWords } from './count-tokens.js';
import type { FaultStore } from './faults.js';
import { MediaDirectiveError, parseMediaDirectives } from './media-directives.js';
import { sendMediaJson } from './media-response.js';
import { readRawBody } from './read-body.js';
import type { ReceivedRequest, SimulatedRecording } from './simulator-types.js';
import type { StatsRecorder } from './stats.js';
import { trackRequest } from './track-request.js';

/**
 * Cohere's v2 API under `/cohere` (the simulator's stand-in for https://api.cohere.com):
 * `POST /cohere/v2/rerank` and `POST /cohere/v2/embed`, written from Cohere's API reference
 * (https://docs.cohere.com/reference/rerank, https://docs.cohere.com/reference/embed,
 * https://docs.cohere.com/reference/errors). Bearer auth; errors as `{id, message}`; fault rules
 * of protocol `cohere` and a `[[sim:status=N]]` directive in the query or the first text.
 */
export const COHERE_PREFIX = '/cohere/v2/';

export interface CohereSimulatorState {
  apiKey?: string;
  faults: FaultStore;
  stats: StatsRecorder;
  nextSequence(): number;
  isShuttingDown(): boolean;
  recordReceived(entry: ReceivedRequest): void;
  takeRecording(protocol: 'cohere'): SimulatedRecording | undefined;
}

class CohereRequestError extends Error {}

export async function handleCohereRequest(request: IncomingMessage, response: ServerResponse, operation: string, state: CohereSimulatorState): Promise<void> {
  const scope = trackRequest(response, state.stats, state.isShuttingDown);
  const raw = await readRawBody(request);
  if (raw === undefined || scope.closed) return;
  const sequence = state.nextSequence();
  const id = `sim-cohere-${sequence.toString(16).padStart(8, '0')}`;
  const fail = (status: number, message: string, headers: Record<string, string> = {}) => sendMediaJson(response, status, { id, message }, headers);
  const text = raw.toString('utf8');
  let body: Record<string, unknown> = {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    parsed = undefined;
  }
  state.recordReceived({ protocol: 'cohere', method: request.method ?? 'POST', path: request.url ?? '', headers: { ...request.headers }, rawBody: text, body: parsed });
  state.stats.recordRequest('cohere', typeof body.model === 'string' ? body.model : '');
  // Cohere: 401 `{"message": "invalid api token"}` for a missing or wrong key.
  if (state.apiKey !== undefined && request.headers.authorization !== `Bearer ${state.apiKey}`) return fail(401, 'invalid api token');
  if (operation !== 'rerank' && operation !== 'embed') return fail(404, `no such endpoint: /v2/${operation}`);
  if (parsed === undefined) return fail(400, 'invalid request: body is not valid JSON');
  let answer: () => Record<string, unknown>;
  let directiveText: string;
  try {
    if (operation === 'rerank') {
      const rerank = decodeRerank(body);
      directiveText = rerank.query;
      answer = () => answerRerank(id, rerank);
    } else {
      const embed = decodeEmbed(body);
      directiveText = embed.texts[0] ?? '';
      answer = () => answerEmbed(id, embed);
    }
  } catch (error) {
    if (!(error instanceof CohereRequestError)) throw error;
    return fail(400, `invalid request: ${error.message}`);
  }
  let directive: number | undefined;
  try {
    directive = parseMediaDirectives(directiveText).status;
  } catch (error) {
    if (!(error instanceof MediaDirectiveError)) throw error;
    return fail(400, `simulator directive: ${error.message}`);
  }
  const recorded = state.takeRecording('cohere');
  if (recorded) {
    response.writeHead(recorded.status ?? 200, { ...recorded.headers, 'content-type': recorded.contentType, 'content-length': Buffer.byteLength(recorded.body) });
    response.end(recorded.body);
    return;
  }
  const rule = state.faults.take('cohere', body.model as string);
  if (rule) state.stats.recordFault();
  if (!(await scope.sleep(rule?.latency ?? 0))) return;
  const status = directive ?? rule?.status;
  if (status !== undefined) return fail(status, `simulated error ${status}`, rule?.retry_after !== undefined ? { 'retry-after': String(rule.retry_after) } : {});
  sendMediaJson(response, 200, answer());
}

interface RerankBody {
  model: string;
  query: string;
  documents: string[];
  topN?: number;
  maxTokensPerDoc: number;
}

const rerankFields = new Set(['model', 'query', 'documents', 'top_n', 'max_tokens_per_doc', 'priority']);

function decodeRerank(body: Record<string, unknown>): RerankBody {
  for (const key of Object.keys(body)) if (!rerankFields.has(key)) throw new CohereRequestError(`unknown field: parameter ${key} is not a valid field`);
  const { model, query, documents, top_n: topN, max_tokens_per_doc: maxTokensPerDoc = 4096 } = body;
  if (typeof model !== 'string' || model === '') throw new CohereRequestError('model is required');
  if (typeof query !== 'string' || query === '') throw new CohereRequestError('query is required');
  if (!Array.isArray(documents) || documents.length === 0) throw new CohereRequestError('documents must be a non-empty list of strings');
  if (documents.some((document) => typeof document !== 'string')) throw new CohereRequestError('documents must be strings');
  if (topN !== undefined && (typeof topN !== 'number' || !Number.isInteger(topN) || topN < 1)) throw new CohereRequestError('top_n must be a positive integer');
  if (typeof maxTokensPerDoc !== 'number' || !Number.isInteger(maxTokensPerDoc) || maxTokensPerDoc < 1) throw new CohereRequestError('max_tokens_per_doc must be a positive integer');
  return { model, query, documents: documents as string[], topN: topN as number | undefined, maxTokensPerDoc };
}

/**
 * Scores from word overlap: the share of the query's words a document holds, squashed into (0, 1)
 * and nudged by the index so that ties order stably. Search units by Cohere's rule: one per
 * query and 100 documents, a document over 500 tokens (query included) counting once per chunk;
 * the simulator's tokens are words (`count-tokens.ts`).
 */
function answerRerank(id: string, body: RerankBody): Record<string, unknown> {
  const queryWords = wordsOf(body.query);
  const queryTokens = countWords(body.query);
  let chunks = 0;
  const scored = body.documents.map((document, index) => {
    const words = wordsOf(document);
    let shared = 0;
    for (const word of queryWords) if (words.has(word)) shared++;
    const overlap = queryWords.size === 0 ? 0 : shared / queryWords.size;
    chunks += Math.max(1, Math.ceil((Math.min(countWords(document), body.maxTokensPerDoc) + queryTokens) / 500));
    return { index, relevance_score: Number((0.02 + 0.96 * overlap - index * 1e-6).toFixed(8)) };
  });
  scored.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  return {
    id,
    results: scored.slice(0, body.topN ?? scored.length),
    meta: { api_version: { version: '2' }, billed_units: { search_units: Math.ceil(chunks / 100) } },
  };
}

function wordsOf(text: string): Set<string> {
  return new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0));
}

interface EmbedBody {
  model: string;
  texts: string[];
  inputType: string;
  types: string[];
  dimension: number;
}

const embedFields = new Set(['model', 'texts', 'images', 'inputs', 'input_type', 'embedding_types', 'output_dimension', 'truncate', 'max_tokens', 'priority']);
const inputTypes = new Set(['search_document', 'search_query', 'classification', 'clustering', 'image']);
const embeddingTypes = new Set(['float', 'int8', 'uint8', 'binary', 'ubinary', 'base64']);
/** The vector sizes of Cohere's embed models (https://docs.cohere.com/docs/cohere-embed). */
const nativeDimensions: Record<string, number> = {
  'embed-v4.0': 1536,
  'embed-english-v3.0': 1024,
  'embed-multilingual-v3.0': 1024,
  'embed-english-light-v3.0': 384,
  'embed-multilingual-light-v3.0': 384,
};
const v4Dimensions = new Set([256, 512, 1024, 1536]);

function decodeEmbed(body: Record<string, unknown>): EmbedBody {
  for (const key of Object.keys(body)) if (!embedFields.has(key)) throw new CohereRequestError(`unknown field: parameter ${key} is not a valid field`);
  const { model, texts, input_type: inputType, embedding_types: types = ['float'], output_dimension: dimension } = body;
  if (typeof model !== 'string' || model === '') throw new CohereRequestError('model is required');
  const native = nativeDimensions[model];
  if (native === undefined) throw new CohereRequestError(`model '${model}' not found, make sure the correct model ID was used and that you have access to the model.`);
  if (!Array.isArray(texts) || texts.length === 0 || texts.some((text) => typeof text !== 'string')) throw new CohereRequestError('texts must be a non-empty list of strings');
  if (texts.length > 96) throw new CohereRequestError('texts: too many texts, the maximum is 96');
  // Required for embed v3 and later.
  if (typeof inputType !== 'string' || !inputTypes.has(inputType)) throw new CohereRequestError('input_type is required: one of search_document, search_query, classification, clustering, image');
  if (!Array.isArray(types) || types.length === 0 || types.some((type) => typeof type !== 'string' || !embeddingTypes.has(type))) throw new CohereRequestError('embedding_types must be a list of float, int8, uint8, binary, ubinary, base64');
  if (dimension !== undefined) {
    if (model !== 'embed-v4.0') throw new CohereRequestError(`output_dimension is not supported for model ${model}`);
    if (typeof dimension !== 'number' || !v4Dimensions.has(dimension)) throw new CohereRequestError('output_dimension must be one of 256, 512, 1024, 1536');
  }
  return { model, texts: texts as string[], inputType, types: types as string[], dimension: (dimension as number | undefined) ?? native };
}

/** Deterministic unit vectors from a hash of the text and its input type; tokens are words. */
function answerEmbed(id: string, body: EmbedBody): Record<string, unknown> {
  const float = body.texts.map((text) => unitVector(`${body.inputType}\u0000${text}`, body.dimension));
  const embeddings: Record<string, unknown> = {};
  for (const type of body.types) {
    if (type === 'float') embeddings.float = float;
    else if (type === 'int8') embeddings.int8 = float.map((vector) => vector.map((value) => Math.max(-128, Math.min(127, Math.round(value * 127 * 8)))));
    else if (type === 'uint8') embeddings.uint8 = float.map((vector) => vector.map((value) => Math.max(0, Math.min(255, Math.round(value * 127 * 8) + 128))));
    else if (type === 'base64') embeddings.base64 = float.map((vector) => Buffer.from(new Float32Array(vector).buffer).toString('base64'));
    else embeddings[type] = float.map((vector) => packBits(vector, type === 'binary'));
  }
  const tokens = body.texts.reduce((sum, text) => sum + countWords(text), 0);
  return {
    id,
    embeddings,
    texts: body.texts,
    meta: { api_version: { version: '2' }, billed_units: { input_tokens: tokens } },
    response_type: 'embeddings_by_type',
  };
}

function unitVector(seed: string, size: number): number[] {
  const values: number[] = [];
  let block = 0;
  while (values.length < size) {
    const digest = createHash('sha256').update(`${seed}\u0000${block++}`).digest();
    for (let offset = 0; offset + 2 <= digest.length && values.length < size; offset += 2) values.push(digest.readUInt16BE(offset) / 32767.5 - 1);
  }
  const norm = Math.sqrt(values.reduce((sum, value) => sum + value * value, 0)) || 1;
  return values.map((value) => Number((value / norm).toFixed(7)));
}

function packBits(vector: number[], signed: boolean): number[] {
  const bytes: number[] = [];
  for (let start = 0; start < vector.length; start += 8) {
    let byte = 0;
    for (let bit = 0; bit < 8; bit++) byte = (byte << 1) | ((vector[start + bit] ?? 0) > 0 ? 1 : 0);
    bytes.push(signed ? byte - 128 : byte);
  }
  return bytes;
}
