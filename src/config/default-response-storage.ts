import type { ResponseStorageConfig } from './types.js';

/** Stored Responses: kept 30 days (OpenAI's retention for Responses), at most 16 MiB each. */
export const defaultResponseStorage: ResponseStorageConfig = { retentionDays: 30, maxStoredBytes: 16 * 1024 * 1024 };
