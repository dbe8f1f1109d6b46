import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { startRequestRecord } from '../../billing/start-request-record.js';
import { nanoToUsd } from '../../core/money.js';
import type { EmbeddingResult } from '../../core/embedding-request.js';
import { createEmbeddings } from '../../embeddings/create-embeddings.js';
import { abortOnClientClose } from '../../http/abort-on-client-close.js';
import { TOKEN_COUNT_HEADER } from '../messages/count-tokens-route.js';
import { decodeBatchEmbedContents, decodeEmbedContent } from './decode-embed-request.js';
import type { GeminiAction } from './read-model-action.js';

export type EmbedAction = Extract<GeminiAction, 'embedContent' | 'batchEmbedContents'>;

/**
 * `models/{model}:embedContent` and `:batchEmbedContents` in Gemini's shape, for every embedding
 * model of the catalog whatever its provider (contract §9): decoded to the canonical request,
 * embedded and charged by `createEmbeddings` as `/v1/embeddings` is, and answered `{embedding:
 * {values}}` / `{embeddings: [{values}]}` (https://ai.google.dev/api/embeddings). Beside the
 * vectors, `usageMetadata` carries the tokens charged and the cost (USD), which Google's SDKs
 * ignore; `x-switchyard-token-count` says whether the provider counted them (`provider`) or the
 * gateway's tokenizer did (`estimated`, as for gemini-embedding-001 on Google AI Studio, which
 * reports no tokens).
 */
export async function answerEmbeddings(context: AppContext, request: FastifyRequest, reply: FastifyReply, model: string, action: EmbedAction): Promise<unknown> {
  const body = request.body as Record<string, unknown>;
  const principal = request.principal!;
  const record = startRequestRecord(context, { requestId: request.id, principal, endpoint: `/models/{model}:${action}`, body: { model } });
  const signal = abortOnClientClose(reply);
  let outcome: Awaited<ReturnType<typeof createEmbeddings>>;
  try {
    const decoded = action === 'embedContent' ? decodeEmbedContent(body, model) : decodeBatchEmbedContents(body, model);
    outcome = await createEmbeddings(context, { principal, requestId: request.id, route: decoded.route, request: decoded.request, signal, record });
  } catch (error) {
    await record.failed(error);
    throw error;
  }
  await record.admitted;
  const { result, cost } = outcome;
  reply
    .header('x-switchyard-provider', outcome.candidate.provider.id)
    .header('x-switchyard-cost', String(nanoToUsd(cost)))
    .header(TOKEN_COUNT_HEADER, result.estimated ? 'estimated' : 'provider');
  const usageMetadata = encodeUsage(result, cost);
  if (action === 'embedContent') return { embedding: { values: result.vectors[0] }, usageMetadata };
  return { embeddings: result.vectors.map((values) => ({ values })), usageMetadata };
}

function encodeUsage(result: EmbeddingResult, cost: bigint) {
  return { promptTokenCount: result.promptTokens, totalTokenCount: result.promptTokens, cost: nanoToUsd(cost) };
}
