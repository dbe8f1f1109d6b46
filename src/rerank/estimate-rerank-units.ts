import type { RerankRequest } from '../core/rerank-request.js';
import type { RerankUnits } from '../billing/price-rerank.js';

/**
 * Cohere bills one search unit per query with up to 100 documents; a document longer than 500
 * tokens (counting the query) is split into chunks, each counting as a document
 * (https://docs.cohere.com/docs/rerank-overview#pricing, https://docs.cohere.com/reference/rerank).
 * Bedrock's rerank bills queries the same way (up to 100 document chunks a query).
 */
const documentsPerSearch = 100;
const tokensPerChunk = 500;
/** Cohere's `max_tokens_per_doc` default: a longer document is cut to it (https://docs.cohere.com/reference/rerank). */
const defaultMaxTokensPerDocument = 4096;

/**
 * The most a rerank request can be billed, before any provider is called: the reservation. A
 * text's tokens are at most its UTF-8 bytes (byte-level BPE never makes more; the embeddings
 * reservation counts the same way) plus a framing token; the query is counted once per document,
 * as token-priced rerankers (Voyage, Jina) bill it. Searches follow Cohere's chunking rule over
 * those counts, so they are at least what Cohere bills.
 */
export function estimateRerankUnits(request: RerankRequest): RerankUnits {
  const queryTokens = estimateTextTokens(request.query);
  const cut = request.maxTokensPerDocument ?? defaultMaxTokensPerDocument;
  let tokens = 0;
  let chunks = 0;
  for (const document of request.documents) {
    const documentTokens = estimateTextTokens(document);
    tokens += queryTokens + documentTokens;
    chunks += Math.max(1, Math.ceil((Math.min(documentTokens, cut) + queryTokens) / tokensPerChunk));
  }
  return { searches: Math.max(1, Math.ceil(chunks / documentsPerSearch)), tokens };
}

/** At most one token per UTF-8 byte, plus one (a tokenizer's framing token). */
export function estimateTextTokens(text: string): number {
  return Buffer.byteLength(text) + 1;
}
