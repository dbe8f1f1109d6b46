import type { ResponseStorageConfig } from './types.js';

/**
 * Stored Responses: kept 30 days (OpenAI's retention for Responses), at most 16 MiB each. Those
 * nobody paid for (WebSocket warm-ups) at most 10,000 and 256 MiB per account: a warm-up a session
 * (as Codex sends), ten thousand sessions a month, holds instructions and tools of ~25 KiB each.
 */
export const defaultResponseStorage: Required<ResponseStorageConfig> = {
  retentionDays: 30,
  maxStoredBytes: 16 * 1024 * 1024,
  maxFreeStoredPerAccount: 10_000,
  maxFreeStoredBytesPerAccount: 256 * 1024 * 1024,
};
