import type { ProviderConfig, ProviderPlatform } from '../../config/types.js';

/**
 * A publisher model's method on Vertex AI:
 * `{base}/v1/projects/{project}/locations/{location}/publishers/{publisher}/models/{model}:{method}`,
 * where the base is `https://aiplatform.googleapis.com` for the global endpoint (location
 * `global`) or `https://{region}-aiplatform.googleapis.com` for a regional one.
 * https://docs.cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.publishers.models
 */
export function vertexModelUrl(
  provider: ProviderConfig,
  platform: Extract<ProviderPlatform, { kind: 'vertex' }>,
  publisher: 'google' | 'anthropic',
  model: string,
  method: string,
): string {
  const base = provider.baseUrl.replace(/\/+$/, '');
  const path = `projects/${encodeURIComponent(platform.project)}/locations/${encodeURIComponent(platform.location)}/publishers/${publisher}/models/${encodeURIComponent(model)}`;
  return `${base}/v1/${path}:${method}`;
}
