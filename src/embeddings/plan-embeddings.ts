import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import type { Candidate } from '../catalog/candidate.js';
import type { ModelConfig } from '../config/types.js';
import type { EmbeddingRequest } from '../core/embedding-request.js';
import type { RouteRequest } from '../core/provider-preferences.js';
import { invalidRequest } from '../errors/gateway-error.js';
import { embeddingAdapterOf } from '../providers/retrieval-adapters.js';
import { routeNonTextRequest } from '../media/select-media-candidates.js';

/**
 * The endpoints that can serve this embeddings request, in routing order (the account's default
 * provider first, then the request's preferences and price, as for text): the model's (and
 * fallback models') embeddings endpoints, minus those whose protocol cannot take the request
 * (token-array inputs, a task type) and those whose model cannot answer the `dimensions` asked
 * for. When the primary model cannot, or routing found endpoints but none can honour the
 * request, the refusal is a 400 naming the field.
 */
export async function planEmbeddings(context: AppContext, principal: Principal, route: RouteRequest, request: EmbeddingRequest): Promise<Candidate[]> {
  const routed = await routeNonTextRequest(context, principal, route, 'embeddings');
  const primary = routed[0].model;
  if (request.dimensions !== undefined && !acceptsDimensions(primary, request.dimensions)) {
    throw invalidRequest(`'dimensions' ${dimensionsRule(primary)} for model '${primary.id}'`, 'dimensions');
  }
  const usable = routed.filter((candidate) => {
    const adapter = embeddingAdapterOf(candidate.provider.api);
    return (
      adapter !== undefined &&
      adapter.incapability(request, candidate.endpoint.model) === undefined &&
      (request.dimensions === undefined || acceptsDimensions(candidate.model, request.dimensions))
    );
  });
  if (usable.length > 0) return usable;
  const refusal = routed.map((candidate) => embeddingAdapterOf(candidate.provider.api)?.incapability(request, candidate.endpoint.model)).find((entry) => entry !== undefined);
  if (refusal) throw invalidRequest(`'${refusal.field}' ${refusal.reason}`, refusal.field);
  throw invalidRequest(`Model '${primary.id}' has no provider that can embed this request`);
}

/**
 * Whether a model answers vectors of `size`: its native size always; smaller ones when the
 * catalog says it can be shortened (`output_dimensions: any`) or lists the size. A model the
 * catalog gives no sizes is left to its provider.
 */
export function acceptsDimensions(model: ModelConfig, size: number): boolean {
  const sizes = model.embedding;
  if (sizes === undefined) return true;
  if (size === sizes.dimensions) return true;
  if (sizes.outputDimensions === 'any') return size >= 1 && size <= sizes.dimensions;
  return sizes.outputDimensions.includes(size);
}

function dimensionsRule(model: ModelConfig): string {
  const sizes = model.embedding!;
  if (sizes.outputDimensions === 'any') return `must be from 1 to ${sizes.dimensions}`;
  const all = [...new Set([...sizes.outputDimensions, sizes.dimensions])].sort((a, b) => a - b);
  return all.length === 1 ? `must be ${all[0]} (the model's only size)` : `must be one of ${all.join(', ')}`;
}
