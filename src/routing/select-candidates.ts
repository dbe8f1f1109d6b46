import type { Principal } from '../auth/principal.js';
import { apiEndpointsOf, isEndpointAvailable, type Catalog } from '../catalog/catalog.js';
import type { ApiEndpoint, EndpointPricing, ModelConfig, ModelEndpointConfig } from '../config/types.js';
import type { ProviderPreferences, RouteRequest } from '../core/provider-preferences.js';
import { GatewayError, invalidRequest, unsupportedParameter } from '../errors/gateway-error.js';
import type { RequestedParameter } from '../core/text-call.js';
import type { PriceCap } from '../store/repositories/api-keys.js';
import type { Candidate } from '../catalog/candidate.js';
import { EndpointHealth } from './endpoint-health.js';

export interface SelectionInput {
  catalog: Catalog;
  route: RouteRequest;
  /** The API endpoint the request came in on (chat, responses, messages share 'chat' models). */
  api: ApiEndpoint;
  parameters: RequestedParameter[];
  stream: boolean;
  principal: Pick<Principal, 'maxPrice' | 'modelMaxPrices'>;
  /** The account's default provider for a model, if it set one. */
  defaultProviderOf: (modelId: string) => string | undefined;
  health: EndpointHealth;
}

/**
 * Resolves `model` then `models[]` into the ordered list of endpoints to try (docs/api-decisions.md §4):
 * request preferences (`provider.only/ignore/order/sort/max_price`), the key's maximum prices,
 * the account's default provider first, then endpoints that honour the request's preferences
 * (reasoning, an offered search), then by price; endpoints whose circuit is open go last. A
 * requirement no endpoint of the model meets is a 400; a preference never is.
 * Pure: no I/O, so every rule is testable on its own.
 */
export function selectCandidates(input: SelectionInput): Candidate[] {
  const { catalog, route } = input;
  const modelIds = [route.model, ...route.fallbackModels];
  const known = modelIds.map((id) => catalog.modelById.get(id)).filter((model): model is ModelConfig => model !== undefined);
  if (known.some((model) => model.free) && known.some((model) => !model.free)) {
    throw invalidRequest("Free and paid models cannot be mixed in 'model' and 'models'", 'models');
  }
  const primary = catalog.modelById.get(route.model);
  const requirements = input.parameters.filter((parameter) => !parameter.preference);
  const preferences = input.parameters.filter((parameter) => parameter.preference);
  if (primary && apiEndpointsOf(primary).includes(input.api)) {
    for (const parameter of requirements) {
      if (!primary.endpoints.some((endpoint) => endpointMeets(catalog, endpoint, parameter))) {
        if (parameter.onlyOn || parameter.name === 'web_search') throw requirementUnmet(parameter, primary.id, catalog, input.api);
        throw unsupportedParameter(
          parameter.field,
          `is not supported by model '${primary.id}' (an operator allows it by adding '${parameter.name}' to supported_parameters of the model's endpoints in the config)`,
        );
      }
    }
  }

  const candidates: Candidate[] = [];
  let excludedByKeyPrice = false;
  let excludedByRequest = false;
  for (const id of modelIds) {
    const model = catalog.modelById.get(id);
    if (!model || !apiEndpointsOf(model).includes(input.api)) continue;
    const usable = model.endpoints.filter(
      (endpoint) =>
        isEndpointAvailable(catalog, endpoint) &&
        (!input.stream || endpoint.streaming) &&
        requirements.every((parameter) => endpointMeets(catalog, endpoint, parameter)),
    );
    const preferred = applyPreferences(usable, route.provider);
    if (preferred.length < usable.length) excludedByRequest = true;
    const capped = preferred.filter((endpoint) => withinCap(endpoint.pricing, input.principal.maxPrice) && withinCap(endpoint.pricing, input.principal.modelMaxPrices[model.id]));
    if (capped.length < preferred.length) excludedByKeyPrice = true;
    const metPreferences = (endpoint: ModelEndpointConfig) =>
      preferences.length === 0 ? 0 : preferences.filter((parameter) => endpointMeets(catalog, endpoint, parameter)).length;
    const ordered = orderEndpoints(capped, route.provider, input.defaultProviderOf(model.id), input.health, metPreferences);
    for (const endpoint of ordered) {
      const provider = catalog.providerById.get(endpoint.provider)!;
      candidates.push({ model, endpoint, provider, healthKey: EndpointHealth.keyOf(provider.id, endpoint.model) });
    }
  }
  if (candidates.length > 0) return candidates;
  const apiName = { chat: '/chat/completions', responses: '/responses', messages: '/messages', speech: '/audio/speech', images: '/images', videos: '/videos', embeddings: '/embeddings', rerank: '/rerank', moderations: '/moderations' }[input.api];
  if (excludedByKeyPrice) {
    throw new GatewayError('no_available_provider', `No provider for model '${route.model}' is within this key's max price; the key's max price excluded every endpoint`, {
      metadata: { reason: 'key_max_price' },
    });
  }
  const reason = excludedByRequest ? ' matches the request\'s provider preferences' : ` is available for ${apiName}`;
  throw new GatewayError('no_available_provider', `No provider for model '${route.model}'${reason}`);
}

/** Whether an endpoint honours a requested parameter: it lists it, and its protocol is one the parameter needs. */
export function endpointMeets(catalog: Catalog, endpoint: ModelEndpointConfig, parameter: RequestedParameter): boolean {
  if (!endpoint.supportedParameters.includes(parameter.name)) return false;
  if (!parameter.onlyOn) return true;
  const api = catalog.providerById.get(endpoint.provider)?.api;
  return api !== undefined && (parameter.onlyOn.protocols as readonly string[]).includes(api);
}

/**
 * A hosted tool, or a requirement only some protocols meet (a search domain filter), is a hard
 * requirement: say why the model cannot meet it, and which models of the catalog do.
 */
function requirementUnmet(parameter: RequestedParameter, modelId: string, catalog: Catalog, api: ApiEndpoint): GatewayError {
  const offering = [...catalog.modelById.values()]
    .filter((model) => apiEndpointsOf(model).includes(api) && model.endpoints.some((endpoint) => endpointMeets(catalog, endpoint, parameter)))
    .map((model) => model.id);
  if (parameter.onlyOn) {
    const alternatives = offering.length > 0 ? `remove it, or use a model that honours it (${offering.join(', ')})` : 'remove it: no model of this gateway honours it';
    return unsupportedParameter(parameter.field, `is not supported by model '${modelId}': ${parameter.onlyOn.why}; ${alternatives}`);
  }
  const alternatives = offering.length > 0 ? `use a model that offers it (${offering.join(', ')})` : 'no model of this gateway offers it';
  return unsupportedParameter(
    parameter.field,
    `is not supported by model '${modelId}': its provider has no hosted web search to run the tool; remove the tool, or ${alternatives}`,
  );
}

function applyPreferences(endpoints: ModelEndpointConfig[], preferences: ProviderPreferences | undefined): ModelEndpointConfig[] {
  if (!preferences) return endpoints;
  return endpoints.filter(
    (endpoint) =>
      (!preferences.only || preferences.only.includes(endpoint.provider)) &&
      !(preferences.ignore ?? []).includes(endpoint.provider) &&
      (preferences.allowFallbacks !== false || !preferences.order || preferences.order.includes(endpoint.provider)) &&
      withinCap(endpoint.pricing, preferences.maxPrice ? { prompt: preferences.maxPrice.prompt ?? null, completion: preferences.maxPrice.completion ?? null } : undefined),
  );
}

function withinCap(pricing: EndpointPricing, cap: PriceCap | null | undefined): boolean {
  if (!cap) return true;
  return (cap.prompt === null || pricing.prompt <= cap.prompt) && (cap.completion === null || pricing.completion <= cap.completion);
}

function orderEndpoints(
  endpoints: ModelEndpointConfig[],
  preferences: ProviderPreferences | undefined,
  defaultProvider: string | undefined,
  health: EndpointHealth,
  metPreferences: (endpoint: ModelEndpointConfig) => number,
): ModelEndpointConfig[] {
  const order = preferences?.order ?? (defaultProvider ? [defaultProvider] : []);
  const rankOf = (endpoint: ModelEndpointConfig) => {
    const index = order.indexOf(endpoint.provider);
    return index === -1 ? order.length : index;
  };
  const metric = sortMetric(preferences?.sort, health);
  // A provider the client or the account named still comes first; among the rest, an endpoint
  // that honours more of the request's preferences (it reasons, it has the offered search) goes
  // before a cheaper one that would serve the request without them.
  const sorted = [...endpoints].sort((a, b) => rankOf(a) - rankOf(b) || metPreferences(b) - metPreferences(a) || metric(a, b));
  // Open circuits go last rather than away: when everything is failing, still try.
  const isOpen = (endpoint: ModelEndpointConfig) => health.state(EndpointHealth.keyOf(endpoint.provider, endpoint.model)) === 'open';
  return [...sorted.filter((endpoint) => !isOpen(endpoint)), ...sorted.filter(isOpen)];
}

function sortMetric(sort: ProviderPreferences['sort'], health: EndpointHealth): (a: ModelEndpointConfig, b: ModelEndpointConfig) => number {
  // Media endpoints price per unit (image, character, second, search) with zero token prices: those break the tie.
  const unitPrice = (endpoint: ModelEndpointConfig) => (endpoint.pricing.image ?? 0n) + (endpoint.pricing.characters ?? 0n) + (endpoint.pricing.videoSecond ?? 0n) + (endpoint.pricing.search ?? 0n);
  const byPrice = (a: ModelEndpointConfig, b: ModelEndpointConfig) =>
    compareBigInt(a.pricing.prompt + a.pricing.completion, b.pricing.prompt + b.pricing.completion) || compareBigInt(unitPrice(a), unitPrice(b));
  if (sort === 'latency') {
    const latency = (endpoint: ModelEndpointConfig) => health.latency(EndpointHealth.keyOf(endpoint.provider, endpoint.model)) ?? Number.MAX_SAFE_INTEGER;
    return (a, b) => latency(a) - latency(b) || byPrice(a, b);
  }
  if (sort === 'throughput') {
    const speed = (endpoint: ModelEndpointConfig) => health.throughput(EndpointHealth.keyOf(endpoint.provider, endpoint.model)) ?? 0;
    return (a, b) => speed(b) - speed(a) || byPrice(a, b);
  }
  return byPrice;
}

function compareBigInt(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
