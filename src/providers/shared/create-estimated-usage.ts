import type { Usage } from '../../core/usage.js';

/**
 * The usage of a response whose provider reported none at all: zeros marked `estimated`, so that
 * the gateway counts the tokens itself instead of billing nothing.
 */
export function createEstimatedUsage(): Usage {
  return { promptTokens: 0, completionTokens: 0, estimated: true };
}
