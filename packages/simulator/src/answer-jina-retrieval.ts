import type { RetrievalAnswer } from './answer-voyage-retrieval.js';
import { countRerankTokens, countTextTokens, embedText, rankDocuments } from './simulate-retrieval-vectors.js';

/**
 * Jina's embeddings and rerank, written from its API (https://jina.ai/embeddings/,
 * https://jina.ai/reranker/, https://api.jina.ai/openapi.json): `task` among jina-embeddings-v3's
 * adapters, `dimensions` a Matryoshka cut of the model's size, rerank's `return_documents`
 * defaulting to true with `document: {text}`. Bad input is FastAPI's 422 with a `detail` list.
 */
const TASKS = new Set(['retrieval.query', 'retrieval.passage', 'text-matching', 'classification', 'separation']);
const MAX_INPUTS = 2048;
const MODEL_DIMENSIONS: Record<string, number> = { 'jina-embeddings-v3': 1024, 'jina-embeddings-v2-base-en': 768, 'jina-clip-v2': 1024 };

function invalid(field: string, message: string): RetrievalAnswer {
  return { status: 422, body: { detail: [{ loc: ['body', field], msg: message, type: 'value_error' }] } };
}

export function answerJinaEmbeddings(body: Record<string, unknown>): RetrievalAnswer {
  const { model, input, task, dimensions, embedding_type: embeddingType } = body;
  if (typeof model !== 'string' || !model) return invalid('model', 'Field required');
  const inputs = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(inputs) || inputs.length === 0 || !inputs.every((item) => typeof item === 'string')) return invalid('input', 'Input should be a list of strings');
  if (inputs.length > MAX_INPUTS) return invalid('input', `List should have at most ${MAX_INPUTS} items`);
  if (task !== undefined && task !== null && !TASKS.has(task as string)) return invalid('task', `Input should be one of ${[...TASKS].join(', ')}`);
  if (embeddingType !== undefined && embeddingType !== 'float') return invalid('embedding_type', 'the simulator answers float only');
  const size = MODEL_DIMENSIONS[model] ?? 1024;
  let length = size;
  if (dimensions !== undefined && dimensions !== null) {
    if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > size) return invalid('dimensions', `dimensions must be an integer from 1 to ${size}`);
    length = dimensions;
  }
  const salt = `jina:${model}:${typeof task === 'string' ? task : ''}`;
  const tokens = countTextTokens(inputs as string[]);
  return {
    status: 200,
    body: {
      model,
      object: 'list',
      usage: { total_tokens: tokens, prompt_tokens: tokens },
      // Matryoshka: the shorter vector is the start of the full one.
      data: (inputs as string[]).map((text, index) => ({ object: 'embedding', index, embedding: embedText(text, salt, size).slice(0, length) })),
    },
  };
}

export function answerJinaRerank(body: Record<string, unknown>): RetrievalAnswer {
  const { model, query, documents, top_n: topN, return_documents: returnDocuments } = body;
  if (typeof model !== 'string' || !model) return invalid('model', 'Field required');
  if (typeof query !== 'string') return invalid('query', 'Input should be a valid string');
  if (!Array.isArray(documents) || documents.length === 0 || !documents.every((item) => typeof item === 'string')) return invalid('documents', 'Input should be a list of strings');
  if (topN !== undefined && topN !== null && (typeof topN !== 'number' || !Number.isInteger(topN) || topN < 1)) return invalid('top_n', 'Input should be a positive integer');
  if (returnDocuments !== undefined && typeof returnDocuments !== 'boolean') return invalid('return_documents', 'Input should be a valid boolean');
  const ranked = rankDocuments(query, documents as string[]).slice(0, typeof topN === 'number' ? topN : undefined);
  return {
    status: 200,
    body: {
      model,
      usage: { total_tokens: countRerankTokens(query, documents as string[]) },
      results: ranked.map(({ index, score }) => ({ index, relevance_score: score, ...(returnDocuments !== false && { document: { text: (documents as string[])[index] } }) })),
    },
  };
}
