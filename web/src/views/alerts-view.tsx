import { useEffect, useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { ErrorMessage, Loading } from '../components/status.js';
import { useApi } from '../use-api.js';

interface AlertSettings {
  low_balance: { threshold: number } | null;
  key_limit_percents: number[];
  channels: { email: boolean; telegram: boolean; webhook: { url: string; secret: string } | null };
}

/** "80, 100" → [80, 100]; null when any part is not a whole number (the server checks the range). */
function parsePercents(text: string): number[] | null {
  const parts = text
    .split(/[\s,]+/)
    .map((part) => part.trim())
    .filter(Boolean);
  if (!parts.every((part) => /^\d+$/.test(part))) return null;
  return parts.map(Number);
}

/**
 * Alerts (`GET`/`PUT /v1/alerts`, owners and admins): when to tell (a low balance, keys at
 * percents of their limits) and where (mail, the linked Telegram chat, a signed webhook). The
 * webhook's secret comes back masked (`****abcd`); left empty, the stored one is kept (the PUT
 * leaves `secret` out), typed, it is replaced. "Send a test alert" posts `/v1/alerts/test` and
 * shows which channels it went to.
 */
export function AlertsView({ token }: { token: Credential }) {
  const current = useApi(() => callApi<{ data: AlertSettings }>(token, 'GET', '/v1/alerts'), [token]);
  const [lowBalance, setLowBalance] = useState('');
  const [percents, setPercents] = useState('');
  const [email, setEmail] = useState(false);
  const [telegram, setTelegram] = useState(false);
  const [webhookUrl, setWebhookUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [test, setTest] = useState<{ id: string; channels: string[] } | null>(null);
  const [testError, setTestError] = useState<unknown>(null);
  const data = current.data?.data;
  useEffect(() => {
    if (!data) return;
    setLowBalance(data.low_balance ? String(data.low_balance.threshold) : '');
    setPercents(data.key_limit_percents.join(', '));
    setEmail(data.channels.email);
    setTelegram(data.channels.telegram);
    setWebhookUrl(data.channels.webhook?.url ?? '');
    setSecret('');
  }, [data]);
  const parsedPercents = parsePercents(percents);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setSaved(false);
    if (parsedPercents === null) return;
    const url = webhookUrl.trim();
    try {
      await callApi(token, 'PUT', '/v1/alerts', {
        low_balance: lowBalance.trim() === '' ? null : { threshold: Number(lowBalance) },
        key_limit_percents: parsedPercents,
        channels: { email, telegram, webhook: url === '' ? null : { url, ...(secret !== '' && { secret }) } },
      });
      setSaved(true);
      current.reload();
    } catch (caught) {
      setError(caught);
    }
  };
  const sendTest = async () => {
    setTest(null);
    setTestError(null);
    try {
      const answer = await callApi<{ data: { id: string; channels: string[] } }>(token, 'POST', '/v1/alerts/test');
      setTest(answer.data);
    } catch (caught) {
      setTestError(caught);
    }
  };
  const storedSecret = data?.channels.webhook?.secret;
  return (
    <section aria-labelledby="alerts-title">
      <h2 id="alerts-title">Alerts</h2>
      {current.loading && !data && <Loading what="alert settings" />}
      {current.error !== undefined && <ErrorMessage error={current.error} onRetry={current.reload} />}
      {data && (
        <form class="card alerts-form" aria-label="Alert settings" onSubmit={submit}>
          <h3>When</h3>
          <label>
            Balance below (USD; empty: no alert)
            <input type="text" inputMode="decimal" value={lowBalance} onInput={(event) => setLowBalance((event.target as HTMLInputElement).value)} />
          </label>
          <label>
            Key limits at percents (e.g. 80, 100)
            <input type="text" inputMode="numeric" value={percents} aria-invalid={parsedPercents === null} onInput={(event) => setPercents((event.target as HTMLInputElement).value)} />
          </label>
          <h3>Where</h3>
          <label class="checkbox">
            <input type="checkbox" checked={email} onChange={(event) => setEmail((event.target as HTMLInputElement).checked)} />
            Email to the owners and admins
          </label>
          <label class="checkbox">
            <input type="checkbox" checked={telegram} onChange={(event) => setTelegram((event.target as HTMLInputElement).checked)} />
            Telegram, to the linked chat
          </label>
          <label>
            Webhook URL (empty: none)
            <input type="url" value={webhookUrl} placeholder="https://example.com/hooks/switchyard" onInput={(event) => setWebhookUrl((event.target as HTMLInputElement).value)} />
          </label>
          <label>
            Webhook secret (16 to 200 characters{storedSecret ? `; stored: ${storedSecret}, empty keeps it` : ''})
            <input type="password" autocomplete="off" value={secret} onInput={(event) => setSecret((event.target as HTMLInputElement).value)} />
          </label>
          <p class="muted">Each delivery is signed: x-switchyard-signature: t=…,v1=HMAC-SHA-256(secret, "t.body").</p>
          <div class="actions">
            <button type="submit" disabled={parsedPercents === null}>
              Save alerts
            </button>
            <button type="button" class="secondary" onClick={() => void sendTest()}>
              Send a test alert
            </button>
          </div>
          {saved && <p role="status">Saved.</p>}
          {error !== null && <ErrorMessage error={error} />}
          {test && (
            <p role="status" data-testid="test-alert-result">
              Test alert {test.id} sent to: {test.channels.join(', ')}.
            </p>
          )}
          {testError !== null && <ErrorMessage error={testError} />}
        </form>
      )}
    </section>
  );
}
