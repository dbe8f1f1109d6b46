/**
 * OpenRouter's `provider` object: how to choose among the endpoints that serve a model.
 * Prices in `maxPrice` are nano-USD per 1M tokens.
 */
export interface ProviderPreferences {
  order?: string[];
  only?: string[];
  ignore?: string[];
  /** When false, only the providers in `order` are tried. Default true. */
  allowFallbacks?: boolean;
  sort?: 'price' | 'latency' | 'throughput';
  maxPrice?: { prompt?: bigint; completion?: bigint };
}

/** The routing part of a generation request, common to every inbound style. */
export interface RouteRequest {
  /** The first-choice model id. */
  model: string;
  /** Fallback model ids (OpenRouter's `models`), tried in order after `model`. */
  fallbackModels: string[];
  provider?: ProviderPreferences;
}
