import { countRerankTokens, countTextTokens, embedText, rankDocuments } from './simulate-retrieval-vectors.js';

/**
 * Voyage's embeddings and rerank, written from its API reference
 * (https://docs.voyageai.com/reference/embeddings-api, https://docs.voyageai.com/reference/reranker-api):
 * the checks Voyage states (at most 1,000 inputs or documents, `input_type` query / document /
 * null, `output_dimension` among the model's sizes, a positive `top_k`) and its answer shapes.
 * Errors are Voyage's `{"detail": "..."}`. A result is `{status, body}` for the route to send.
 */
export type RetrievalAnswer = { status: number; body: unknown };

const MAX_ITEMS = 1000;
/** voyage-3.5, voyage-3.5-lite, voyage-3-large, voyage-code-3 and the voyage-4 family: 1024 by default, or 256, 512, 2048. */
const FLEXIBLE_DIMENSIONS = [256, 512, 1024, 2048];
const FIXED_DIMENSIONS: Record<string, number> = { 'voyage-finance-2': 1024, 'voyage-law-2': 1024, 'voyage-code-2': 1536, 'voyage-multilingual-2': 1024 };

function invalid(detail: string): RetrievalAnswer {
  return { status: 400, body: { detail } };
}

export function answerVoyageEmbeddings(body: Record<string, unknown>): RetrievalAnswer {
  const { input, model, input_type: inputType, output_dimension: outputDimension, output_dtype: outputDtype } = body;
  if (typeof model !== 'string' || !model) return invalid('model is required');
  const inputs = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(inputs) || inputs.length === 0 || !inputs.every((item) => typeof item === 'string')) return invalid('input must be a string or a list of strings');
  if (inputs.length > MAX_ITEMS) return invalid(`The maximum length of the list is ${MAX_ITEMS}.`);
  if (inputType !== undefined && inputType !== null && inputType !== 'query' && inputType !== 'document') return invalid("input_type must be 'query', 'document' or null");
  if (outputDtype !== undefined && outputDtype !== null && outputDtype !== 'float') return invalid('the simulator answers output_dtype float only');
  const fixed = FIXED_DIMENSIONS[model];
  let dimensions = fixed ?? 1024;
  if (outputDimension !== undefined && outputDimension !== null) {
    const allowed = fixed === undefined ? FLEXIBLE_DIMENSIONS : [fixed];
    if (typeof outputDimension !== 'number' || !allowed.includes(outputDimension)) return invalid(`output_dimension ${String(outputDimension)} is not supported by ${model}; supported: ${allowed.join(', ')}`);
    dimensions = outputDimension;
  }
  const salt = `voyage:${model}:${typeof inputType === 'string' ? inputType : ''}`;
  return {
    status: 200,
    body: {
      object: 'list',
      data: (inputs as string[]).map((text, index) => ({ object: 'embedding', embedding: embedText(text, salt, dimensions), index })),
      model,
      usage: { total_tokens: countTextTokens(inputs as string[]) },
    },
  };
}

export function answerVoyageRerank(body: Record<string, unknown>): RetrievalAnswer {
  const { query, documents, model, top_k: topK, return_documents: returnDocuments } = body;
  if (typeof model !== 'string' || !model) return invalid('model is required');
  if (typeof query !== 'string') return invalid('query must be a string');
  if (!Array.isArray(documents) || documents.length === 0 || !documents.every((item) => typeof item === 'string')) return invalid('documents must be a list of strings');
  if (documents.length > MAX_ITEMS) return invalid(`The number of documents cannot exceed ${MAX_ITEMS}.`);
  if (topK !== undefined && topK !== null && (typeof topK !== 'number' || !Number.isInteger(topK) || topK < 1)) return invalid('top_k must be a positive integer');
  if (returnDocuments !== undefined && typeof returnDocuments !== 'boolean') return invalid('return_documents must be a boolean');
  const ranked = rankDocuments(query, documents as string[]).slice(0, typeof topK === 'number' ? topK : undefined);
  return {
    status: 200,
    body: {
      object: 'list',
      data: ranked.map(({ index, score }) => ({ relevance_score: score, index, ...(returnDocuments === true && { document: (documents as string[])[index] }) })),
      model,
      usage: { total_tokens: countRerankTokens(query, documents as string[]) },
    },
  };
}
