import { nanoToUsd } from '../../core/money.js';
import type { RequestRecord } from '../../billing/request-record.js';

/** A request log row as `GET /requests/{request_id}` shows it (docs/api-decisions.md §5); cost in USD. */
export function encodeRequest(record: RequestRecord): Record<string, unknown> {
  return {
    id: record.id,
    created_at: record.createdAt,
    model: record.model,
    provider: record.provider,
    endpoint: record.endpoint,
    streamed: record.streamed,
    status: record.status,
    latency_ms: record.latencyMs,
    usage: {
      prompt_tokens: record.promptTokens,
      completion_tokens: record.completionTokens,
      total_tokens: record.promptTokens + record.completionTokens,
    },
    cost: nanoToUsd(record.cost),
    key_id: record.keyId,
    end_user: record.endUser ?? null,
    // Preferences the serving endpoint could not honour, as x-switchyard-omitted said (docs/api-decisions.md §4).
    omitted: record.omitted ?? [],
    // Where the gateway ran hosted tools (contract §4a): the charge split into tokens and searches.
    ...(record.webSearchRequests !== null && record.webSearchRequests !== undefined && {
      cost_breakdown: {
        tokens: nanoToUsd(record.cost - (record.toolCost ?? 0n)),
        web_search: { requests: record.webSearchRequests, cost: nanoToUsd(record.toolCost ?? 0n) },
      },
    }),
  };
}
