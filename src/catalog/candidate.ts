import type { ModelConfig, ModelEndpointConfig, ProviderConfig } from '../config/types.js';

/** One way to serve a request: a model, one of its endpoints, and that endpoint's provider. */
export interface Candidate {
  model: ModelConfig;
  endpoint: ModelEndpointConfig;
  provider: ProviderConfig;
  /** Key into EndpointHealth. */
  healthKey: string;
}
