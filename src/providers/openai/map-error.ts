import { UpstreamError } from '../../errors/upstream-error.js';
import { asNumber, asRecord, asString, type JsonRecord } from '../shared/lenient-json.js';

/**
 * An error reported inside a 2xx answer or a stream: `{"error": {...}}` (OpenAI streams, and
 * OpenRouter, https://openrouter.ai/docs/api/errors), `{"error": "text"}`, or vLLM's
 * `{"object": "error", "message": ..., "code": 400}`. Undefined when the record is not an error.
 * Error statuses need nothing of their own: the shared `readUpstreamError` reads `error.message`.
 */
export function mapInBandError(record: JsonRecord, providerId: string, raw: string): UpstreamError | undefined {
  const detail = asRecord(record.error) ?? (record.object === 'error' ? record : undefined);
  const text = asString(record.error) ?? asString(detail?.message);
  if (!detail && text === undefined) return undefined;
  // OpenRouter and vLLM put an HTTP status in `code`; OpenAI puts a string there or nothing.
  const code = asNumber(detail?.code);
  const status = code !== undefined && code >= 400 && code <= 599 ? code : 502;
  return new UpstreamError({
    provider: providerId,
    status,
    message: `${providerId} reported an error: ${text || 'no error message'}`,
    body: raw,
  });
}
