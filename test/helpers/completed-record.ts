import type { RequestRecord } from '../../src/billing/request-record.js';
import { createId } from '../../src/core/ids.js';

/** A completed chat request's log row of the simulator's model, for tests that feed the books directly. */
export function completedRecord(accountId: string, overrides: Partial<RequestRecord> = {}): RequestRecord {
  return {
    id: createId('req'),
    accountId,
    keyId: null,
    model: 'sim/openai-model',
    provider: 'sim-openai',
    endpoint: '/chat/completions',
    streamed: false,
    status: 'completed',
    errorCode: null,
    latencyMs: 5,
    promptTokens: 1,
    completionTokens: 1,
    cachedTokens: 0,
    reasoningTokens: 0,
    cost: 0n,
    estimated: false,
    createdAt: new Date().toISOString(),
    ...overrides,
  };
}
