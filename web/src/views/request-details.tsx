import { useEffect, useRef } from 'preact/hooks';
import { ErrorMessage, Loading } from '../components/status.js';
import { formatInteger, formatTime, formatUsd } from '../format.js';
import type { Loaded } from '../use-api.js';
import type { RequestRow } from './request-row.js';

/** One request's details: why it ended as it did, who asked (end user, key by name) and what was left out. */
export function RequestDetails({ id, detail, onClose }: { id: string; detail: Loaded<{ data: RequestRow } | undefined>; onClose: () => void }) {
  // The loaded row, once it is this id's (the previous one's stays in `detail` while the next loads).
  const row = detail.data?.data.id === id ? detail.data.data : undefined;
  const heading = useRef<HTMLHeadingElement>(null);
  // Move focus to the details, so keyboard and screen-reader users land where the answer is.
  useEffect(() => heading.current?.focus(), [id]);
  return (
    <div class="card" role="region" aria-label="Request details">
      <h3 ref={heading} tabIndex={-1}>
        Request {id}
      </h3>
      {detail.loading && !row && <Loading what="the request" />}
      {detail.error !== undefined && <ErrorMessage error={detail.error} />}
      {row && (
        <dl class="details">
          <dt>Created</dt>
          <dd>{formatTime(row.created_at)}</dd>
          <dt>Model</dt>
          <dd>{row.model}</dd>
          <dt>Provider</dt>
          <dd>{row.provider ?? '—'}</dd>
          <dt>Endpoint</dt>
          <dd>{row.endpoint}</dd>
          <dt>Streamed</dt>
          <dd>{row.streamed ? 'yes' : 'no'}</dd>
          <dt>Status</dt>
          <dd>{row.status}</dd>
          {row.error && (
            <>
              <dt>Error</dt>
              <dd class="request-error">
                <code>{row.error.code}</code>
                {row.error.message && <div>{row.error.message}</div>}
              </dd>
            </>
          )}
          <dt>Latency</dt>
          <dd>{row.latency_ms === null ? '—' : `${row.latency_ms} ms`}</dd>
          <dt>Prompt tokens</dt>
          <dd>{formatInteger(row.usage.prompt_tokens)}</dd>
          <dt>Completion tokens</dt>
          <dd>{formatInteger(row.usage.completion_tokens)}</dd>
          <dt>Cost</dt>
          <dd>{formatUsd(row.cost)}</dd>
          <dt>Key</dt>
          <dd>
            {row.key_name ?? row.key_id ?? '—'}
            {row.key_name && <div class="muted">{row.key_id}</div>}
          </dd>
          <dt>End user</dt>
          <dd>{row.end_user ?? '—'}</dd>
          <dt>Left out</dt>
          <dd>{row.omitted.length > 0 ? row.omitted.join(', ') : 'nothing'}</dd>
        </dl>
      )}
      <button type="button" class="secondary" onClick={onClose}>
        Close details
      </button>
    </div>
  );
}
