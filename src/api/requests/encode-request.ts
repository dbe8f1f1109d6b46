import type { Kysely } from 'kysely';
import { nanoToUsd } from '../../core/money.js';
import type { Database } from '../../store/database.js';
import { keyNamesOf } from '../../store/repositories/api-keys.js';
import type { RequestRecord } from '../../billing/request-record.js';
import { logOnlyErrorCodes } from '../../errors/request-log-codes.js';

/** Rows of one account's log, each with its key's name: one lookup of the few distinct keys, not a join on the log's index. */
export async function encodeRequests(db: Kysely<Database>, accountId: string, records: readonly RequestRecord[]): Promise<Array<Record<string, unknown>>> {
  const keyIds = new Set<string>();
  for (const record of records) if (record.keyId !== null) keyIds.add(record.keyId);
  const names = await keyNamesOf(db, accountId, [...keyIds]);
  return records.map((record) => encodeRequest(record, record.keyId === null ? null : (names.get(record.keyId) ?? null)));
}

/**
 * A request log row as `GET /requests/{request_id}` shows it (docs/api-decisions.md §5); cost in
 * USD. `keyName` is the name of the key that made it, where the caller's account has that key.
 */
export function encodeRequest(record: RequestRecord, keyName: string | null = null): Record<string, unknown> {
  return {
    id: record.id,
    created_at: record.createdAt,
    model: record.model,
    provider: record.provider,
    endpoint: record.endpoint,
    streamed: record.streamed,
    // The response cache answered it (contract §9): no provider was called.
    cache_hit: record.cacheHit === true,
    status: record.status,
    latency_ms: record.latencyMs,
    usage: {
      prompt_tokens: record.promptTokens,
      completion_tokens: record.completionTokens,
      total_tokens: record.promptTokens + record.completionTokens,
    },
    cost: nanoToUsd(record.cost),
    key_id: record.keyId,
    key_name: keyName,
    end_user: record.endUser ?? null,
    // Why it was refused or failed: the code and message the client got (docs/api-decisions.md §5).
    error: record.errorCode === null ? null : { code: record.errorCode, message: record.errorMessage ?? describeLogOnly(record.errorCode) },
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

/** An ending no client answer described (`client_closed` …) reads as its table line; a row from before messages were kept, null. */
function describeLogOnly(code: string): string | null {
  return Object.hasOwn(logOnlyErrorCodes, code) ? logOnlyErrorCodes[code as keyof typeof logOnlyErrorCodes] : null;
}
