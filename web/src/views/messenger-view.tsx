import { useEffect, useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { ErrorMessage, Loading } from '../components/status.js';
import { formatTime } from '../format.js';
import { useApi } from '../use-api.js';

interface LinkStatus {
  linked: boolean;
  messenger: string | null;
  linked_at: string | null;
  bot_configured: boolean;
}

interface LinkCode {
  code: string;
  deep_link: string | null;
  expires_at: string;
}

const pollMs = 2_000;

/**
 * Telegram linking (free models need it): a one-time code and the bot's deep link; the page
 * polls the link status until the bot has confirmed, then shows the account as linked.
 */
export function MessengerView({ token }: { token: Credential }) {
  const status = useApi(() => callApi<{ data: LinkStatus }>(token, 'GET', '/v1/messenger'), [token]);
  const [code, setCode] = useState<LinkCode | null>(null);
  const [error, setError] = useState<unknown>(null);
  const linked = status.data?.data.linked ?? false;
  // Without a bot nothing would redeem a code: the API refuses one, and the page offers none.
  const botConfigured = status.data?.data.bot_configured ?? false;

  useEffect(() => {
    if (!code || linked) return;
    const timer = setInterval(status.reload, pollMs);
    return () => clearInterval(timer);
  }, [code, linked, status.reload]);

  const issue = async () => {
    setError(null);
    try {
      setCode((await callApi<{ data: LinkCode }>(token, 'POST', '/v1/messenger/link-code')).data);
    } catch (caught) {
      setError(caught);
    }
  };
  const unlink = async () => {
    setError(null);
    try {
      await callApi(token, 'DELETE', '/v1/messenger');
      setCode(null);
      status.reload();
    } catch (caught) {
      setError(caught);
    }
  };

  return (
    <section aria-labelledby="messenger-title">
      <h2 id="messenger-title">Messenger</h2>
      <p class="muted">Free models need a linked Telegram account.</p>
      {status.loading && !status.data && <Loading what="the link status" />}
      {status.error !== undefined && <ErrorMessage error={status.error} onRetry={status.reload} />}
      {error !== null && <ErrorMessage error={error} />}
      {status.data && (
        <p class="link-status" role="status" aria-live="polite" data-linked={String(linked)}>
          {linked ? `Linked (${status.data.data.messenger}) since ${formatTime(status.data.data.linked_at)}` : 'Not linked'}
        </p>
      )}
      {status.data && !linked && !botConfigured && (
        <p class="card notice" role="note">
          This gateway runs no Telegram bot, so an account cannot be linked here. Ask the operator to set one up.
        </p>
      )}
      {status.data && !linked && botConfigured && (
        <>
          <button type="button" onClick={() => void issue()}>
            {code ? 'Get a new link code' : 'Link Telegram'}
          </button>
          {code && (
            <div class="card" role="region" aria-label="Telegram link code">
              {code.deep_link ? (
                <p>
                  Open <a href={code.deep_link} rel="noopener noreferrer" target="_blank">{code.deep_link}</a> in Telegram and press Start.
                </p>
              ) : (
                <p>Send this to the bot in Telegram:</p>
              )}
              <p>
                <code class="link-code">/start {code.code}</code>
              </p>
              <p class="muted">Valid until {formatTime(code.expires_at)}. This page updates once the bot confirms.</p>
            </div>
          )}
        </>
      )}
      {linked && (
        <button type="button" class="danger" onClick={() => void unlink()}>
          Unlink
        </button>
      )}
    </section>
  );
}
