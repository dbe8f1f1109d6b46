import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * Telegram's Login Widget in its redirect form (`data-auth-url`): after the person confirms in
 * Telegram, the widget sends the browser back to this page with its signed fields in the query,
 * which the page posts to `/auth/telegram` (see landing.ts). The redirect form needs no global
 * callback evaluated from an attribute, so the page's CSP keeps `script-src` free of eval; it
 * only admits telegram.org's script and oauth.telegram.org's frame.
 * https://core.telegram.org/widgets/login
 */
export function TelegramLogin({ botUsername }: { botUsername: string }) {
  const slot = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    const script = document.createElement('script');
    script.async = true;
    script.src = 'https://telegram.org/js/telegram-widget.js?22';
    script.dataset.telegramLogin = botUsername;
    script.dataset.size = 'large';
    script.dataset.authUrl = `${location.origin}/`;
    script.dataset.requestAccess = 'write';
    script.onerror = () => setFailed(true);
    slot.current?.appendChild(script);
    return () => slot.current?.replaceChildren();
  }, [botUsername]);
  return (
    <div class="telegram-login">
      <div ref={slot} data-testid="telegram-widget" />
      {failed && <p class="muted">Telegram's sign-in button could not be loaded from telegram.org. Check the connection, or use another way below.</p>}
    </div>
  );
}
