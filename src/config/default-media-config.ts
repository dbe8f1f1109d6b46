import type { MediaConfig } from './types.js';

/** Defaults of the `media:` config section and of the model-level `max_images`. */
export const defaultMediaConfig: MediaConfig & { maxImages: number } = {
  syncWindowMs: 20_000,
  pollIntervalMs: 1_000,
  fetchMaxBytes: 20 * 1024 * 1024,
  fetchTimeoutMs: 15_000,
  fileTtlSeconds: 24 * 60 * 60,
  maxImages: 10,
};
