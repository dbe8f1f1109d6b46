import type { ProviderConfig } from '../../config/types.js';
import type { EmbeddingRequest, EmbeddingResult, EmbeddingTask } from '../../core/embedding-request.js';
import type { CallContext } from '../provider-adapter.js';
import type { EmbeddingAdapter } from '../retrieval-adapter.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { asArray, asNumber, asObjects, asRecord } from '../shared/lenient-json.js';
import { readJsonObject } from '../shared/send-request.js';
import { sendUpstream } from '../shared/send-upstream.js';
import type { GeminiErrorBody } from './gemini-wire-types.js';
import { mapError, mapHttpError } from './map-error.js';
import { geminiHeaders, geminiModelUrl } from './transport.js';

/**
 * Gemini's `batchEmbedContents` takes at most 100 requests; more is refused with 400 "at most 100
 * requests can be in one batch" (vercel/ai's recorded answer, issue 16101).
 * https://ai.google.dev/api/embeddings#method:-models.batchembedcontents
 */
const aiStudioMaxInputs = 100;

/**
 * Vertex AI's `:predict` for text embeddings takes up to 250 instances and 20,000 input tokens a
 * call, but gemini-embedding-001 one instance a call.
 * https://cloud.google.com/vertex-ai/generative-ai/docs/embeddings/get-text-embeddings
 */
const vertexMaxInstances = 250;
const vertexMaxTokens = 20_000;

/** Google's task types are the canonical tasks in upper case (`RETRIEVAL_QUERY` …); https://ai.google.dev/api/embeddings#tasktype */
function taskTypeOf(task: EmbeddingTask | undefined): string | undefined {
  return task?.toUpperCase();
}

function isVertex(provider: ProviderConfig): boolean {
  return provider.platform?.kind === 'vertex';
}

/**
 * Embeddings over Gemini's wire. Google AI Studio: `models/{model}:batchEmbedContents` (one
 * request per input, each naming `models/{model}`), answered `{embeddings: [{values}]}` — with no
 * token count for gemini-embedding-001, so the result is marked `estimated` and the gateway
 * counts the inputs (a `usageMetadata.promptTokenCount`, which newer models send, is taken as
 * it is). Vertex AI: the publisher model's `:predict` (`instances: [{content, task_type, title}]`,
 * `parameters: {outputDimensionality}`), answered `predictions[].embeddings` with
 * `statistics.token_count` per input, which is the usage. Text only: token arrays are refused.
 * https://ai.google.dev/api/embeddings,
 * https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api
 */
export const geminiEmbeddingAdapter: EmbeddingAdapter = {
  api: 'gemini',
  // AI Studio's cap; on Vertex `embed` splits further where a model takes fewer (see `vertexBatches`).
  maxInputsPerCall: () => aiStudioMaxInputs,
  incapability(request) {
    if (request.inputs.some((input) => typeof input !== 'string')) return { field: 'input', reason: 'must be text for Gemini embedding models (they take no token arrays)' };
    return undefined;
  },
  embed(request, context) {
    return isVertex(context.provider) ? predictOnVertex(request, context) : batchEmbedContents(request, context);
  },
};

async function postJson(context: CallContext, method: string, body: unknown): Promise<Record<string, unknown>> {
  const url = geminiModelUrl(context.provider, context.providerModel, method);
  let result: Record<string, unknown> & { error?: GeminiErrorBody };
  try {
    const response = await sendUpstream(context, url, { method: 'POST', json: body, headers: await geminiHeaders(context.provider) });
    result = await readJsonObject(context.provider.id, response);
  } catch (error) {
    throw mapHttpError(error);
  }
  if (result.error) throw mapError(context.provider.id, result.error);
  return result;
}

async function batchEmbedContents(request: EmbeddingRequest, context: CallContext): Promise<EmbeddingResult> {
  const taskType = taskTypeOf(request.task);
  const body = {
    requests: request.inputs.map((input) => ({
      model: `models/${context.providerModel}`,
      content: { parts: [{ text: input as string }] },
      ...(taskType !== undefined && { taskType }),
      ...(request.title !== undefined && { title: request.title }),
      ...(request.dimensions !== undefined && { outputDimensionality: request.dimensions }),
    })),
  };
  const answer = await postJson(context, 'batchEmbedContents', body);
  const vectors = asArray(answer.embeddings).map((entry) => readValues(asRecord(entry)?.values));
  checkVectors(context, vectors, request.inputs.length, answer);
  const tokens = asNumber(asRecord(answer.usageMetadata)?.promptTokenCount);
  return tokens === undefined ? { vectors, promptTokens: 0, estimated: true } : { vectors, promptTokens: tokens, estimated: false };
}

async function predictOnVertex(request: EmbeddingRequest, context: CallContext): Promise<EmbeddingResult> {
  const taskType = taskTypeOf(request.task);
  const parts = await Promise.all(
    vertexBatches(request.inputs as string[], context.providerModel).map(async (inputs) => {
      const body = {
        instances: inputs.map((content) => ({
          content,
          ...(taskType !== undefined && { task_type: taskType }),
          ...(request.title !== undefined && { title: request.title }),
        })),
        ...(request.dimensions !== undefined && { parameters: { outputDimensionality: request.dimensions } }),
      };
      const answer = await postJson(context, 'predict', body);
      const embeddings = asObjects<{ values?: unknown; statistics?: unknown }>(asObjects<{ embeddings?: unknown }>(answer.predictions).map((prediction) => asRecord(prediction.embeddings) ?? {}));
      const vectors = embeddings.map((embedding) => readValues(embedding.values));
      checkVectors(context, vectors, inputs.length, answer);
      const counts = embeddings.map((embedding) => asNumber(asRecord(embedding.statistics)?.token_count));
      return { vectors, tokens: counts.reduce<number>((sum, count) => sum + (count ?? 0), 0), counted: counts.every((count) => count !== undefined) };
    }),
  );
  const vectors = parts.flatMap((part) => part.vectors);
  const promptTokens = parts.reduce((sum, part) => sum + part.tokens, 0);
  return { vectors, promptTokens, estimated: !parts.every((part) => part.counted) };
}

/**
 * The inputs in `:predict` calls within Vertex's limits: one a call for the Gemini embedding
 * models, else up to 250 and 20,000 tokens, the tokens reckoned generously (a token per three
 * UTF-8 bytes, as the reservation estimate does) so that no call goes over.
 */
export function vertexBatches(inputs: readonly string[], providerModel: string): string[][] {
  const maxInstances = /^gemini-embedding/.test(providerModel) ? 1 : vertexMaxInstances;
  const batches: string[][] = [];
  let current: string[] = [];
  let tokens = 0;
  for (const input of inputs) {
    const estimate = Math.ceil(Buffer.byteLength(input) / 3);
    if (current.length > 0 && (current.length >= maxInstances || tokens + estimate > vertexMaxTokens)) {
      batches.push(current);
      current = [];
      tokens = 0;
    }
    current.push(input);
    tokens += estimate;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

function readValues(value: unknown): number[] {
  return asArray(value).filter((entry): entry is number => typeof entry === 'number' && Number.isFinite(entry));
}

function checkVectors(context: CallContext, vectors: number[][], expected: number, answer: unknown): void {
  if (vectors.length !== expected || vectors.some((vector) => vector.length === 0)) {
    throw createProtocolError(context.provider.id, `answered ${vectors.length} embeddings for ${expected} inputs`, JSON.stringify(answer).slice(0, 500));
  }
}
