import type { Logger } from 'pino';
import type { Config } from '../config/types.js';

/**
 * The start-up summary an operator reads first: which providers take traffic, and for each one
 * that does not, the variable to set (a provider without its key is listed but never routed).
 */
export function logProviderSummary(logger: Pick<Logger, 'info' | 'warn'>, config: Config): void {
  const enabled = config.providers.filter((provider) => provider.enabled).map((provider) => provider.id);
  const disabled = config.providers.filter((provider) => !provider.enabled);
  logger.info({ enabled, disabled: disabled.map((provider) => provider.id) }, `providers: ${enabled.length} enabled (${enabled.join(', ') || 'none'}), ${disabled.length} without an API key`);
  for (const provider of disabled) {
    const models = config.models.filter((model) => model.endpoints.some((endpoint) => endpoint.provider === provider.id)).length;
    logger.warn(
      { provider: provider.id, variable: provider.apiKeyVariable, models },
      `provider ${provider.id} is disabled: ${provider.apiKeyVariable ? `set ${provider.apiKeyVariable}` : 'set its api_key'} to serve its ${models} model endpoints`,
    );
  }
}

/**
 * The one line `npm start` prints when no provider can take traffic (a fresh clone without keys):
 * every model would answer 503, so it says how to enable one and how to try the gateway offline.
 */
export function offlineHint(config: Config): string | undefined {
  if (config.providers.some((provider) => provider.enabled)) return undefined;
  const variable = config.providers.find((provider) => provider.apiKeyVariable)?.apiKeyVariable;
  return `no provider has an API key, so every model answers 503: set one (${variable ? `${variable}=… npm start` : 'see the config file'}), or try Switchyard offline with npm run demo`;
}
