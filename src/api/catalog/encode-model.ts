import { apiEndpointsOf, developerOf, isEndpointAvailable, type Catalog } from '../../catalog/catalog.js';
import type { EndpointPricing, ModelConfig } from '../../config/types.js';
import { formatScaled, perMillionNanoToUnitUsd } from '../../core/money.js';

/**
 * A model in OpenRouter's public shape (docs/api-decisions.md §3), so tools written for OpenRouter's catalog
 * read it unchanged, with OpenAI's `Model` fields besides (`object`, `owned_by`; `id` and `created`
 * are both's), so that the `openai` SDKs read it too. Prices are USD per token (or per unit) as
 * decimal strings.
 */
export function encodeModel(catalog: Catalog, model: ModelConfig): Record<string, unknown> {
  const cheapest = cheapestEndpoint(catalog, model);
  const contextLength = model.contextLength ?? cheapest.contextLength;
  return {
    id: model.id,
    object: 'model',
    canonical_slug: model.id,
    name: model.name,
    created: model.created,
    owned_by: developerOf(model.id),
    description: model.description,
    context_length: contextLength,
    expiration_date: model.expirationDate,
    architecture: {
      modality: `${model.inputModalities.join('+')}->${model.outputModalities.join('+')}`,
      input_modalities: model.inputModalities,
      output_modalities: model.outputModalities,
      tokenizer: model.tokenizer,
      instruct_type: null,
    },
    pricing: encodePricing(cheapest.pricing),
    top_provider: {
      context_length: cheapest.contextLength ?? contextLength,
      max_completion_tokens: cheapest.maxCompletionTokens,
      is_moderated: false,
    },
    per_request_limits: null,
    // The gateway sets no sampling defaults of its own; OpenRouter's SDK requires the field.
    default_parameters: null,
    supported_voices: model.voices.length > 0 ? model.voices : null,
    supported_parameters: [...new Set(model.endpoints.flatMap((endpoint) => endpoint.supportedParameters))],
    free: model.free,
    endpoints: apiEndpointsOf(model),
  };
}

/** The listed price is the cheapest available endpoint's, as the router prefers it by default. */
function cheapestEndpoint(catalog: Catalog, model: ModelConfig): ModelConfig['endpoints'][number] {
  const candidates = model.endpoints.filter((endpoint) => isEndpointAvailable(catalog, endpoint));
  const pool = candidates.length > 0 ? candidates : model.endpoints;
  return pool.reduce((best, endpoint) => (priceRank(endpoint.pricing) < priceRank(best.pricing) ? endpoint : best));
}

function priceRank(pricing: EndpointPricing): bigint {
  return pricing.prompt + pricing.completion + (pricing.image ?? 0n) + (pricing.videoSecond ?? 0n) + (pricing.characters ?? 0n) + (pricing.search ?? 0n);
}

/**
 * Per-token prices as decimal strings; per-unit prices (request, image, second, search) likewise.
 * Embedding and moderation models price `prompt` (per input token, as OpenRouter lists
 * embeddings); rerank models `search` (USD per search, a query over up to the provider's
 * documents per search unit) or `prompt`.
 */
export function encodePricing(pricing: EndpointPricing): Record<string, string> {
  const perUnit = (nano: bigint) => formatScaled(nano, 9);
  const encoded: Record<string, string> = {
    prompt: perMillionNanoToUnitUsd(pricing.prompt),
    completion: perMillionNanoToUnitUsd(pricing.completion),
    request: perUnit(pricing.request ?? 0n),
    image: perUnit(pricing.image ?? 0n),
    web_search: '0',
    internal_reasoning: perMillionNanoToUnitUsd(pricing.reasoning ?? pricing.completion),
  };
  if (pricing.cachedPrompt !== undefined) encoded.input_cache_read = perMillionNanoToUnitUsd(pricing.cachedPrompt);
  if (pricing.cacheWrite !== undefined) encoded.input_cache_write = perMillionNanoToUnitUsd(pricing.cacheWrite);
  if (pricing.videoSecond !== undefined) encoded.video_second = perUnit(pricing.videoSecond);
  if (pricing.characters !== undefined) encoded.character = perMillionNanoToUnitUsd(pricing.characters);
  if (pricing.search !== undefined) encoded.search = perUnit(pricing.search);
  return encoded;
}
