import { useEffect, useRef, useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { formatTime, formatUsd } from '../format.js';
import { useApi } from '../use-api.js';
import { LimitBar } from '../components/limit-bar.js';
import { ResetSelect } from '../components/reset-select.js';
import type { LimitReset } from '../limit-period.js';
import { KeyLimitsForm } from './key-limits-form.js';

export interface PriceCap {
  prompt: number | null;
  completion: number | null;
}

export interface KeyRow {
  id: string;
  name: string;
  label: string;
  management: boolean;
  created_at: string;
  limit: number | null;
  limit_remaining: number | null;
  limit_reset: LimitReset;
  usage: number;
  usage_daily: number;
  usage_weekly: number;
  usage_monthly: number;
  max_price: PriceCap | null;
  model_max_prices: Record<string, PriceCap>;
}

function formatCap(cap: PriceCap | null): string {
  if (!cap) return 'none';
  return `prompt ${cap.prompt === null ? '—' : formatUsd(cap.prompt)}, completion ${cap.completion === null ? '—' : formatUsd(cap.completion)} per 1M`;
}

/** What the key's limit counts now: the current period's usage with a reset, else its whole usage. */
function limitUsage(key: KeyRow): number {
  if (key.limit_reset === 'daily') return key.usage_daily;
  if (key.limit_reset === 'weekly') return key.usage_weekly;
  if (key.limit_reset === 'monthly') return key.usage_monthly;
  return key.usage;
}

function limitText(key: KeyRow): string {
  if (key.limit === null) return 'no limit';
  return `${formatUsd(key.limit)}${key.limit_reset ? ` ${key.limit_reset}` : ''} (${formatUsd(key.limit_remaining)} left)`;
}

/**
 * The account's keys (a management key, an owner or admin, or a member's own): create, limits
 * with their reset period, max prices, revoke.
 */
export function KeysView({ token, makesManagementKeys = true }: { token: Credential; makesManagementKeys?: boolean }) {
  const keys = useApi(() => callApi<{ data: KeyRow[]; next_cursor: string | null }>(token, 'GET', '/v1/keys?limit=500'), [token]);
  const [created, setCreated] = useState<{ key: KeyRow; secret: string } | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);

  const revoke = async (id: string) => {
    setActionError(null);
    try {
      await callApi(token, 'DELETE', `/v1/keys/${encodeURIComponent(id)}`);
      setConfirming(null);
      keys.reload();
    } catch (error) {
      setActionError(error);
    }
  };

  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <CreateKeyForm
        token={token}
        makesManagementKeys={makesManagementKeys}
        onCreated={(key, secret) => {
          setCreated({ key, secret });
          keys.reload();
        }}
      />
      {created && <NewKeySecret name={created.key.name} secret={created.secret} onDismiss={() => setCreated(null)} />}
      {actionError !== null && <ErrorMessage error={actionError} />}
      {keys.loading && !keys.data && <Loading what="keys" />}
      {keys.error !== undefined && <ErrorMessage error={keys.error} onRetry={keys.reload} />}
      {keys.data && keys.data.data.length === 0 && <Empty>No active keys.</Empty>}
      {keys.data && keys.data.data.length > 0 && (
        <ul class="key-list" aria-label="Active keys">
          {keys.data.data.map((key) => (
            <li key={key.id} class="card" data-key-id={key.id} aria-label={`Key ${key.name}`}>
              <div class="key-head">
                <strong class="key-name">{key.name}</strong>
                <code>{key.label}</code>
                {key.management && <span class="badge">management</span>}
              </div>
              <dl class="details">
                <dt>Created</dt>
                <dd>{formatTime(key.created_at)}</dd>
                <dt>Usage</dt>
                <dd>{formatUsd(key.usage)}</dd>
                <dt>Limit</dt>
                <dd class="key-limit">{limitText(key)}</dd>
                <dt>Today / week / month</dt>
                <dd>
                  {formatUsd(key.usage_daily)} / {formatUsd(key.usage_weekly)} / {formatUsd(key.usage_monthly)}
                </dd>
                <dt>Max price</dt>
                <dd class="key-max-price">{formatCap(key.max_price)}</dd>
                <dt>Per-model max prices</dt>
                <dd>
                  {Object.keys(key.model_max_prices).length === 0
                    ? 'none'
                    : Object.entries(key.model_max_prices).map(([model, cap]) => (
                        <div key={model}>
                          {model}: {formatCap(cap)}
                        </div>
                      ))}
                </dd>
              </dl>
              {key.limit !== null && <LimitBar used={limitUsage(key)} limit={key.limit} reset={key.limit_reset} label={`Limit of ${key.name}`} />}
              <div class="actions">
                <button type="button" class="secondary" aria-label={`Edit limits of ${key.name}`} onClick={() => setEditing(editing === key.id ? null : key.id)}>
                  Edit limits
                </button>
                {confirming === key.id ? (
                  <>
                    <button type="button" class="danger" aria-label={`Confirm revoking ${key.name}`} onClick={() => void revoke(key.id)}>
                      Confirm revoke
                    </button>
                    <button type="button" class="secondary" onClick={() => setConfirming(null)}>
                      Cancel
                    </button>
                  </>
                ) : (
                  <button type="button" class="danger" aria-label={`Revoke ${key.name}`} onClick={() => setConfirming(key.id)}>
                    Revoke
                  </button>
                )}
              </div>
              {editing === key.id && (
                <KeyLimitsForm
                  token={token}
                  keyRow={key}
                  onSaved={() => {
                    setEditing(null);
                    keys.reload();
                  }}
                />
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Only an owner (or a management key) makes a management key: it is the owner's credential. */
function CreateKeyForm({ token, makesManagementKeys, onCreated }: { token: Credential; makesManagementKeys: boolean; onCreated: (key: KeyRow, secret: string) => void }) {
  const [name, setName] = useState('');
  const [limit, setLimit] = useState('');
  const [reset, setReset] = useState<LimitReset>(null);
  const [management, setManagement] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = { name: name.trim() || undefined, management, limit: limit === '' ? undefined : Number(limit), limit_reset: limit === '' ? undefined : reset };
      const answer = await callApi<{ data: KeyRow; key: string }>(token, 'POST', '/v1/keys', body);
      setName('');
      setLimit('');
      setReset(null);
      setManagement(false);
      onCreated(answer.data, answer.key);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card filters" aria-label="Create a key" onSubmit={submit}>
      <label>
        Key name
        <input value={name} maxLength={200} onInput={(event) => setName((event.target as HTMLInputElement).value)} />
      </label>
      <label>
        Spending limit (USD, optional)
        <input type="number" min="0" step="any" value={limit} onInput={(event) => setLimit((event.target as HTMLInputElement).value)} />
      </label>
      <ResetSelect value={reset} onChange={setReset} />
      {makesManagementKeys && (
        <label class="checkbox">
          <input type="checkbox" checked={management} onChange={(event) => setManagement((event.target as HTMLInputElement).checked)} />
          Management key
        </label>
      )}
      <button type="submit" disabled={busy}>
        Create key
      </button>
      {error !== null && <ErrorMessage error={error} />}
    </form>
  );
}

/** The secret exists only in this answer: shown once, with a copy button, then gone. */
function NewKeySecret({ name, secret, onDismiss }: { name: string; secret: string; onDismiss: () => void }) {
  const [copied, setCopied] = useState(false);
  const region = useRef<HTMLDivElement>(null);
  useEffect(() => region.current?.focus(), [secret]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div class="card notice" role="region" aria-label="New key secret" ref={region} tabIndex={-1}>
      <p>
        The secret of <strong>{name}</strong>. Copy it now: it is shown only once.
      </p>
      <code class="secret" data-testid="new-key-secret">
        {secret}
      </code>
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy key'}
        </button>
        <button type="button" class="secondary" onClick={onDismiss}>
          I have saved it
        </button>
      </div>
    </div>
  );
}
