import { createHash } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { bedrockAuthentication, encodeBedrockError } from './bedrock-protocols.js';
import { countWords } from './count-tokens.js';
import type { SimulatorState } from './handle-protocol-request.js';
import { requestIdFor, SimulatorRequestError, type EncodedError } from './protocol-adapter.js';
import { readBody } from './read-body.js';
import { sendJsonBody } from './send-json-body.js';
import { trackRequest } from './track-request.js';

/**
 * Bedrock's embedding and rerank models on InvokeModel (`POST /model/{modelId}/invoke`), each
 * with its vendor's body as AWS's model parameter pages give it:
 * - Titan Text Embeddings v2 `{inputText, dimensions?, normalize?, embeddingTypes?}` →
 *   `{embedding, inputTextTokenCount}` (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html);
 * - Cohere Embed v3/v4 `{texts, input_type, truncate?, embedding_types?, output_dimension? (v4)}` →
 *   `{id, embeddings, texts, response_type}` (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed.html);
 * - Cohere Rerank 3.5 `{query, documents, top_n?, max_tokens_per_doc?, api_version >= 2}` and
 *   Amazon Rerank 1.0 `{query, documents, top_n?}` → `{results: [{index, relevance_score}]}`, best first.
 * Vectors are deterministic (from a hash of the model, the input type and the text) and of the
 * size asked for; relevance is the share of the query's words a document contains. Token counts
 * use the simulator's tokenizer (one per word) and go in Bedrock's `X-Amzn-Bedrock-Input-Token-Count`
 * header (and Titan's body); the `no_usage` fault leaves them out. Authentication, fault rules,
 * latency and queued recordings work as on the simulator's other Bedrock routes.
 */
export type BedrockRetrievalModel = 'titan-embed-v2' | 'titan-embed-v1' | 'cohere-embed-v3' | 'cohere-embed-v4' | 'cohere-rerank' | 'amazon-rerank';

export function bedrockRetrievalModel(modelId: string): BedrockRetrievalModel | undefined {
  const id = modelId.toLowerCase();
  if (id.includes('amazon.titan-embed-text-v2')) return 'titan-embed-v2';
  if (id.includes('amazon.titan-embed-text-v1') || id.includes('amazon.titan-embed-g1-text')) return 'titan-embed-v1';
  if (id.includes('cohere.embed-v4')) return 'cohere-embed-v4';
  if (id.includes('cohere.embed-')) return 'cohere-embed-v3';
  if (id.includes('cohere.rerank')) return 'cohere-rerank';
  if (id.includes('amazon.rerank')) return 'amazon-rerank';
  return undefined;
}

interface Answer {
  body: Record<string, unknown>;
  inputTokens: number;
}

export async function handleBedrockRetrievalRequest(request: IncomingMessage, response: ServerResponse, target: { modelId: string; kind: BedrockRetrievalModel }, state: SimulatorState): Promise<void> {
  const { settings, stats } = state;
  const scope = trackRequest(response, stats, state.isShuttingDown);
  const sequence = state.nextSequence();
  const headers: OutgoingHttpHeaders = { 'x-amzn-requestid': requestIdFor(sequence) };
  const sendError = (error: EncodedError, extra: OutgoingHttpHeaders = {}) => sendJsonBody(response, scope, error.status, JSON.stringify(error.body), { headers: { ...headers, ...error.headers, ...extra } });

  const bodyText = await readBody(request);
  if (bodyText === undefined || scope.closed) return;
  stats.recordRequest('bedrock', target.modelId);
  if (settings.apiKey !== undefined) {
    const refusal = await bedrockAuthentication.authenticate!({ method: request.method ?? 'POST', path: request.url ?? '', headers: request.headers, body: bodyText }, settings.apiKey, { sequence });
    if (refusal) return sendError(refusal);
  }
  let parsed: unknown;
  let answer: Answer;
  try {
    try {
      parsed = JSON.parse(bodyText);
    } catch {
      throw new SimulatorRequestError('Malformed input request, please reformat your input and try again.');
    }
    state.recordReceived({ protocol: 'bedrock', method: request.method ?? 'POST', path: request.url ?? '', headers: { ...request.headers }, rawBody: bodyText, body: parsed });
    answer = answerFor(target, record(parsed, '#'));
  } catch (error) {
    if (!(error instanceof SimulatorRequestError)) throw error;
    return sendError(encodeBedrockError(400, { sequence, message: error.message }));
  }
  const recorded = state.takeRecording('bedrock');
  if (recorded) {
    response.writeHead(recorded.status ?? 200, { ...headers, ...recorded.headers, 'content-type': recorded.contentType, 'content-length': Buffer.byteLength(recorded.body) });
    response.end(recorded.body);
    return;
  }
  const fault = state.faults.take('bedrock', target.modelId);
  if (fault) stats.recordFault();
  if (!(await scope.sleep(fault?.latency ?? settings.latencyMs))) return;
  if (fault?.status !== undefined) return sendError(encodeBedrockError(fault.status, { sequence, retryAfterSeconds: fault.retry_after }), fault.retry_after === undefined ? {} : { 'retry-after': String(fault.retry_after) });
  const body = { ...answer.body };
  if (fault?.no_usage) delete body.inputTextTokenCount;
  const usage = fault?.no_usage ? {} : { 'x-amzn-bedrock-input-token-count': String(answer.inputTokens), 'x-amzn-bedrock-output-token-count': '0' };
  sendJsonBody(response, scope, 200, JSON.stringify(body), { headers: { ...headers, ...usage } });
}

function answerFor(target: { modelId: string; kind: BedrockRetrievalModel }, body: Record<string, unknown>): Answer {
  switch (target.kind) {
    case 'titan-embed-v2':
    case 'titan-embed-v1':
      return answerTitan(target, body);
    case 'cohere-embed-v3':
    case 'cohere-embed-v4':
      return answerCohereEmbed(target, body);
    default:
      return answerRerank(target.kind, body);
  }
}

const malformed = (detail: string) => new SimulatorRequestError(`Malformed input request: ${detail}, please reformat your input and try again.`);

function record(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed(`${path}: expected type: JSONObject, found: ${Array.isArray(value) ? 'JSONArray' : typeof value}`);
  return value as Record<string, unknown>;
}

function allowOnly(body: Record<string, unknown>, keys: readonly string[]): void {
  for (const key of Object.keys(body)) if (!keys.includes(key)) throw malformed(`#: extraneous key [${key}] is not permitted`);
}

function answerTitan(target: { modelId: string; kind: BedrockRetrievalModel }, body: Record<string, unknown>): Answer {
  const v2 = target.kind === 'titan-embed-v2';
  allowOnly(body, v2 ? ['inputText', 'dimensions', 'normalize', 'embeddingTypes'] : ['inputText']);
  const text = body.inputText;
  if (text === undefined) throw malformed('#: required key [inputText] not found');
  if (typeof text !== 'string') throw malformed('#/inputText: expected type: String');
  if (text.length === 0 || text.length > 50_000) throw malformed(`#/inputText: expected minLength: 1, maxLength: 50000, actual: ${text.length}`);
  const dimensions = body.dimensions ?? (v2 ? 1024 : 1536);
  if (v2 && ![256, 512, 1024].includes(dimensions as number)) throw malformed(`#/dimensions: ${JSON.stringify(dimensions)} is not a valid enum value`);
  if (body.normalize !== undefined && typeof body.normalize !== 'boolean') throw malformed('#/normalize: expected type: Boolean');
  const types = body.embeddingTypes === undefined ? undefined : stringList(body.embeddingTypes, '#/embeddingTypes', ['float', 'binary']);
  const embedding = vectorOf(`${target.modelId}\n${text}`, dimensions as number, body.normalize !== false);
  const inputTokens = Math.max(1, countWords(text));
  const answer: Record<string, unknown> = { embedding, inputTextTokenCount: inputTokens };
  if (types) answer.embeddingsByType = Object.fromEntries(types.map((type) => [type, type === 'float' ? embedding : embedding.map((value) => (value > 0 ? 1 : 0))]));
  return { body: answer, inputTokens };
}

function answerCohereEmbed(target: { modelId: string; kind: BedrockRetrievalModel }, body: Record<string, unknown>): Answer {
  const v4 = target.kind === 'cohere-embed-v4';
  allowOnly(body, v4 ? ['texts', 'images', 'inputs', 'input_type', 'truncate', 'embedding_types', 'output_dimension', 'max_tokens'] : ['texts', 'images', 'input_type', 'truncate', 'embedding_types']);
  const texts = stringList(body.texts ?? [], '#/texts');
  if (texts.length > 96) throw malformed(`#/texts: expected maximum item count: 96, found: ${texts.length}`);
  if (!v4) for (const [index, text] of texts.entries()) if (text.length > 2048) throw malformed(`#/texts/${index}: expected maxLength: 2048, actual: ${text.length}`);
  const inputType = body.input_type;
  if (inputType === undefined) throw malformed('#: required key [input_type] not found');
  if (typeof inputType !== 'string' || !['search_document', 'search_query', 'classification', 'clustering', 'image'].includes(inputType)) throw malformed(`#/input_type: ${JSON.stringify(inputType)} is not a valid enum value`);
  const truncations = v4 ? ['NONE', 'LEFT', 'RIGHT'] : ['NONE', 'START', 'END'];
  if (body.truncate !== undefined && !truncations.includes(body.truncate as string)) throw malformed(`#/truncate: ${JSON.stringify(body.truncate)} is not a valid enum value`);
  const dimensions = v4 ? (body.output_dimension ?? 1536) : 1024;
  if (![256, 512, 1024, 1536].includes(dimensions as number)) throw malformed(`#/output_dimension: ${JSON.stringify(dimensions)} is not a valid enum value`);
  const types = body.embedding_types === undefined ? undefined : stringList(body.embedding_types, '#/embedding_types', ['float', 'int8', 'uint8', 'binary', 'ubinary']);
  const vectors = texts.map((text) => vectorOf(`${target.modelId}\n${inputType}\n${text}`, dimensions as number, true));
  const id = createHash('sha256').update(JSON.stringify(body)).digest('hex');
  const uuid = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20, 32)}`;
  const inputTokens = texts.reduce((sum, text) => sum + countWords(text), 0);
  // Without embedding_types Cohere answers `embeddings_floats` (a list of vectors); with them, one list per type.
  const embeddings = types ? Object.fromEntries(types.map((type) => [type, type === 'float' ? vectors : vectors.map((vector) => vector.map((value) => Math.max(-128, Math.min(127, Math.round(value * 127)))))])) : vectors;
  return { body: { id: uuid, texts, embeddings, response_type: types ? 'embeddings_by_type' : 'embeddings_floats' }, inputTokens };
}

function answerRerank(kind: BedrockRetrievalModel, body: Record<string, unknown>): Answer {
  const cohere = kind === 'cohere-rerank';
  allowOnly(body, cohere ? ['query', 'documents', 'top_n', 'max_tokens_per_doc', 'api_version', 'rank_fields', 'return_documents'] : ['query', 'documents', 'top_n']);
  if (cohere) {
    const version = body.api_version;
    if (version === undefined || typeof version !== 'number' || version < 2) throw malformed(`#/api_version: ${typeof version === 'number' ? version : 1} is not greater or equal to 2`);
  }
  if (typeof body.query !== 'string') throw malformed(body.query === undefined ? '#: required key [query] not found' : '#/query: expected type: String');
  const documents = stringList(body.documents, '#/documents');
  if (documents.length === 0 || documents.length > 1000) throw malformed(`#/documents: expected between 1 and 1000 items, found: ${documents.length}`);
  const topN = body.top_n ?? documents.length;
  if (typeof topN !== 'number' || !Number.isInteger(topN) || topN < 1) throw malformed('#/top_n: expected an integer of at least 1');
  const results = documents
    .map((document, index) => ({ index, relevance_score: relevance(body.query as string, document) }))
    .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
    .slice(0, topN);
  const inputTokens = countWords(body.query) + documents.reduce((sum, document) => sum + countWords(document), 0);
  return { body: cohere ? { id: createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 36), results } : { results }, inputTokens };
}

function stringList(value: unknown, path: string, allowed?: readonly string[]): string[] {
  if (!Array.isArray(value)) throw malformed(`${path}: expected type: JSONArray`);
  for (const [index, item] of value.entries()) {
    if (typeof item !== 'string') throw malformed(`${path}/${index}: expected type: String`);
    if (allowed && !allowed.includes(item)) throw malformed(`${path}/${index}: ${item} is not a valid enum value`);
  }
  return value as string[];
}

/** A deterministic vector: values from a counter-mode SHA-256 stream of the seed, unit length when `normalize`. */
function vectorOf(seed: string, dimensions: number, normalize: boolean): number[] {
  const values: number[] = [];
  for (let block = 0; values.length < dimensions; block++) {
    const digest = createHash('sha256').update(`${block}\n${seed}`).digest();
    for (let offset = 0; offset + 2 <= digest.length && values.length < dimensions; offset += 2) values.push(digest.readUInt16BE(offset) / 32767.5 - 1);
  }
  if (!normalize) return values;
  const norm = Math.sqrt(values.reduce((sum, value) => sum + value * value, 0)) || 1;
  return values.map((value) => value / norm);
}

/** The share of the query's distinct words the document has, lifted a little so that no score is exactly 0 or 1. */
function relevance(query: string, document: string): number {
  const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const asked = words(query);
  const found = words(document);
  let shared = 0;
  for (const word of asked) if (found.has(word)) shared++;
  const share = asked.size === 0 ? 0 : shared / asked.size;
  return Math.round((0.02 + 0.96 * share) * 1e6) / 1e6;
}
