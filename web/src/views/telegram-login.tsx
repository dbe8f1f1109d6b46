import { useEffect, useState } from 'preact/hooks';

/** The fields Telegram hands back for a confirmed login (https://core.telegram.org/widgets/login#receiving-authorization-data). */
export interface TelegramLoginFields {
  id: number;
  first_name?: string;
  last_name?: string;
  username?: string;
  photo_url?: string;
  auth_date: number;
  hash: string;
}

interface TelegramLoginApi {
  auth(options: { bot_id: number; request_access?: string; lang?: string }, callback: (user: TelegramLoginFields | false) => void): void;
}

declare global {
  interface Window {
    Telegram?: { Login?: TelegramLoginApi };
  }
}

const widgetScript = 'https://telegram.org/js/telegram-widget.js?22';

/**
 * Telegram sign-in through the Login Widget's script in its callback form (`Telegram.Login.auth`):
 * the person confirms in Telegram's own window and the signed fields come back to this page as a
 * JavaScript value, which `onFields` posts to `/auth/telegram` as JSON. Nothing travels in a URL,
 * so no other site can hand the page someone else's login (the widget's redirect form would let a
 * crafted link sign a visitor in as the link's author), and no callback is evaluated from an
 * attribute, so the page's CSP needs no eval: it admits telegram.org's script and nothing else.
 */
export function TelegramLogin({ botId, onFields }: { botId: number; onFields: (fields: TelegramLoginFields) => void }) {
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>(() => (window.Telegram?.Login ? 'ready' : 'loading'));
  useEffect(() => {
    if (window.Telegram?.Login) return;
    const script = document.createElement('script');
    script.async = true;
    script.src = widgetScript;
    script.onload = () => setState(window.Telegram?.Login ? 'ready' : 'failed');
    script.onerror = () => setState('failed');
    document.head.appendChild(script);
  }, []);
  const start = () =>
    window.Telegram?.Login?.auth({ bot_id: botId, request_access: 'write' }, (user) => {
      // `false`: the person closed Telegram's window or declined; nothing to do.
      if (user) onFields(user);
    });
  return (
    <div class="telegram-login">
      <button type="button" class="telegram" disabled={state !== 'ready'} onClick={start}>
        Continue with Telegram
      </button>
      {state === 'failed' && <p class="muted">Telegram's sign-in could not be loaded from telegram.org. Check the connection, or use another way below.</p>}
    </div>
  );
}
