import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { loadPageAssets, type PageAsset } from './load-page-assets.js';

const basePolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
];

/**
 * Only our own files, no inline script or style, no plugins, no framing; the page talks to this
 * origin only (its API calls are same-origin fetches with the key in a header or the session cookie).
 */
export const pageContentSecurityPolicy = basePolicy.join('; ');

/**
 * With Telegram sign-in on, the Login Widget's script (telegram.org) is admitted, and the call its
 * `Telegram.Login.auth` makes to oauth.telegram.org when the person's login is already confirmed;
 * nothing else. The page uses the callback form, whose answer comes back as a script value (not
 * in a URL, not through an attribute evaluated as code), so `script-src` needs no eval.
 * https://core.telegram.org/widgets/login
 */
export function pagePolicyFor(options: { telegramLogin: boolean }): string {
  if (!options.telegramLogin) return pageContentSecurityPolicy;
  const widen: Record<string, string> = {
    "script-src 'self'": "script-src 'self' https://telegram.org",
    "connect-src 'self'": "connect-src 'self' https://oauth.telegram.org",
  };
  return basePolicy.map((rule) => widen[rule] ?? rule).join('; ');
}

/**
 * The account settings page and operator console (web/), built by `npm run build` into
 * dist/web: `/` is the page, `/app/…` its hashed assets. Any other path under /app is the
 * usual JSON 404 envelope.
 */
export function registerWebRoutes(app: FastifyInstance, context: AppContext, assets: Map<string, PageAsset> = loadPageAssets()): void {
  // Read per response: the Telegram widget is admitted exactly while Telegram sign-in is on.
  const policy = () => pagePolicyFor({ telegramLogin: Boolean(context.config.auth?.telegram.login && context.config.server.telegram) });
  const send = (reply: FastifyReply, asset: PageAsset, immutable: boolean) =>
    reply
      .header('content-security-policy', policy())
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .type(asset.contentType)
      .send(asset.body);

  const servePage = async (_request: unknown, reply: FastifyReply) => {
    const page = assets.get('/');
    if (!page) {
      context.logger.warn('the account page is not built (dist/web is missing): run npm run build');
      throw new GatewayError('not_found', 'The account page is not built on this server: run npm run build');
    }
    return send(reply, page, false);
  };
  app.get('/', { config: { auth: 'none' } }, servePage);
  // `/app/` too: the router folds the trailing slash, and `/app/*` alone would leave `/app/` a 405.
  app.get('/app', { config: { auth: 'none' } }, servePage);
  // An invite link (contract §8) opens the page, which reads the invite from /auth/invites/{token}.
  app.get('/invites/:token', { config: { auth: 'none' } }, servePage);

  app.get('/app/*', { config: { auth: 'none' } }, async (request, reply) => {
    const path = request.url.split('?')[0];
    const asset = path === '/' ? undefined : assets.get(path);
    if (!asset) throw new GatewayError('not_found', `No route for GET ${path}`);
    // Vite names every asset after its content hash, so a cached copy never goes stale.
    return send(reply, asset, path.startsWith('/app/assets/'));
  });
}
