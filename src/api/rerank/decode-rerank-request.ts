import type { RouteRequest } from '../../core/provider-preferences.js';
import type { RerankRequest } from '../../core/rerank-request.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { decodeRouteRequest } from '../shared/decode-route-request.js';

const rerankFields = new Set(['model', 'models', 'provider', 'query', 'documents', 'top_n', 'return_documents', 'max_tokens_per_doc']);

/** Cohere's recommended ceiling per request (https://docs.cohere.com/reference/rerank); Jina and Voyage take as many. */
export const maxRerankDocuments = 1000;

export interface DecodedRerankRequest {
  route: RouteRequest;
  request: RerankRequest;
  /** Answer each result's document text (`document: {text}`) beside its index. */
  returnDocuments: boolean;
}

/**
 * Reads `POST /rerank` (contract §9, Cohere's v2 body; `documents` as strings or `{text}`
 * objects as Jina and Cohere's v1 take them). Anything malformed or unknown is a 400 naming
 * the field.
 */
export function decodeRerankRequest(body: Record<string, unknown>): DecodedRerankRequest {
  for (const name of Object.keys(body)) {
    if (!rerankFields.has(name)) throw unsupportedParameter(name);
  }
  const route = decodeRouteRequest(body);
  const { query, documents, top_n: topN, return_documents: returnDocuments = false, max_tokens_per_doc: maxTokensPerDocument } = body;
  if (typeof query !== 'string' || query.trim() === '') throw invalidRequest("'query' is required: the text to rank the documents against", 'query');
  if (!Array.isArray(documents)) throw invalidRequest("'documents' is required: an array of strings or {text} objects", 'documents');
  if (documents.length === 0) throw invalidRequest("'documents' must hold at least one document", 'documents');
  if (documents.length > maxRerankDocuments) throw invalidRequest(`'documents' may hold at most ${maxRerankDocuments} documents`, 'documents');
  const texts = documents.map((document, index) => readDocument(document, index));
  if (topN !== undefined && (typeof topN !== 'number' || !Number.isInteger(topN) || topN < 1)) throw invalidRequest("'top_n' must be an integer of at least 1", 'top_n');
  if (typeof returnDocuments !== 'boolean') throw invalidRequest("'return_documents' must be a boolean", 'return_documents');
  if (maxTokensPerDocument !== undefined && (typeof maxTokensPerDocument !== 'number' || !Number.isInteger(maxTokensPerDocument) || maxTokensPerDocument < 1)) {
    throw invalidRequest("'max_tokens_per_doc' must be an integer of at least 1", 'max_tokens_per_doc');
  }
  const request: RerankRequest = { query, documents: texts };
  if (topN !== undefined) request.topN = topN as number;
  if (maxTokensPerDocument !== undefined) request.maxTokensPerDocument = maxTokensPerDocument as number;
  return { route, request, returnDocuments };
}

function readDocument(document: unknown, index: number): string {
  if (typeof document === 'string') return document;
  const field = `documents[${index}]`;
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw invalidRequest(`'${field}' must be a string or a {text} object`, field);
  for (const key of Object.keys(document)) {
    if (key !== 'text') throw unsupportedParameter(`${field}.${key}`);
  }
  const { text } = document as { text?: unknown };
  if (typeof text !== 'string') throw invalidRequest(`'${field}.text' must be a string`, `${field}.text`);
  return text;
}
