import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Account, type ProviderContext } from 'oidc-provider';

export interface OidcTestAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface OidcTestClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

/** How a login prompt is answered without a person: sign in as this account, or refuse (access_denied). */
export type OidcLoginAnswer = { login: string } | { deny: true };

export interface StartOidcProviderOptions {
  clients: OidcTestClient[];
  accounts: OidcTestAccount[];
  /** Answer every login prompt at once (no page shown); null (the default) shows the login form. */
  autoLogin?: OidcLoginAnswer | null;
  /** Put email and name in the ID token itself, as Google does; by default they are only at userinfo (OIDC Core 5.4). */
  claimsInIdToken?: boolean;
}

export interface TestOidcProvider {
  /** `http://127.0.0.1:<port>`, the issuer to configure. */
  issuer: string;
  provider: Provider;
  /** Changes how the next login prompts are answered (null: show the form). */
  setAutoLogin(answer: OidcLoginAnswer | null): void;
  /**
   * Drives a whole authorization request over fetch with a cookie jar of its own (a new browser
   * each time): follows the provider's redirects by hand, submits the login form with `answer`
   * when it is shown, and returns the URL the provider finally redirects to (the client's
   * redirect URI with `code` or `error`), without requesting it.
   */
  completeAuthorization(authorizationUrl: string, answer?: OidcLoginAnswer): Promise<string>;
  close(): Promise<void>;
}

/**
 * A real OpenID Provider (panva's oidc-provider, certified) on a free 127.0.0.1 port: discovery,
 * authorization code with PKCE required, ID tokens signed with a fresh RS256 key, userinfo. The
 * login step is a tiny HTML form at `/interaction/{uid}` (an input `login` for the account's
 * `sub`, a "Sign in" and a "Deny" button) that a browser test fills in, or is answered at once
 * with `autoLogin`. Consent is granted without asking (first-party clients).
 */
export async function startOidcProvider(options: StartOidcProviderOptions): Promise<TestOidcProvider> {
  const accounts = new Map(options.accounts.map((account) => [account.sub, account]));
  let autoLogin = options.autoLogin ?? null;
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const provider = new Provider(issuer, {
    clients: options.clients.map((client) => ({ ...client, grant_types: ['authorization_code'], response_types: ['code'] })),
    findAccount: (_ctx, id) => findAccount(accounts, id),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: !options.claimsInIdToken,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test-key', alg: 'RS256', use: 'sig' }] },
    loadExistingGrant: grantWithoutConsent,
    // Set, so that the provider does not print a notice for each default it falls back to.
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
  });
  const providerCallback = provider.callback();

  server.on('request', (req, res) => {
    const match = /^\/interaction\/([^/?]+)(\/login|\/deny)?/.exec(req.url ?? '');
    if (!match) return providerCallback(req, res);
    answerInteraction(req, res, match[1], match[2]).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });

  async function answerInteraction(req: IncomingMessage, res: ServerResponse, uid: string, action: string | undefined): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name !== 'login') throw new Error(`unexpected prompt ${details.prompt.name}`);
    let answer: OidcLoginAnswer | null = autoLogin;
    if (action === '/deny') answer = { deny: true };
    if (action === '/login') answer = { login: new URLSearchParams(await readBody(req)).get('login') ?? '' };
    if (!answer) return sendForm(res, uid, '');
    if ('deny' in answer) {
      return provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The person declined to sign in.' }, { mergeWithLastSubmission: false });
    }
    if (!accounts.has(answer.login)) return sendForm(res, uid, `No account "${answer.login}".`);
    return provider.interactionFinished(req, res, { login: { accountId: answer.login } }, { mergeWithLastSubmission: false });
  }

  return {
    issuer,
    provider,
    setAutoLogin(answer) {
      autoLogin = answer;
    },
    completeAuthorization: (authorizationUrl, answer) => completeAuthorization(issuer, authorizationUrl, answer),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function findAccount(accounts: Map<string, OidcTestAccount>, id: string): Account | undefined {
  const account = accounts.get(id);
  if (!account) return undefined;
  return { accountId: id, claims: () => ({ ...account }) };
}

/** oidc-provider's documented way to skip the consent prompt: a grant of what was asked, made on the spot. */
async function grantWithoutConsent(ctx: ProviderContext) {
  const { oidc } = ctx;
  const grantId = oidc.result?.consent?.grantId ?? (oidc.client ? oidc.session?.grantIdFor(oidc.client.clientId) : undefined);
  if (grantId) return oidc.provider.Grant.find(grantId);
  if (!oidc.client) return undefined;
  const grant = new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.session?.accountId });
  grant.addOIDCScope([...oidc.requestParamScopes].join(' '));
  await grant.save();
  return grant;
}

function sendForm(res: ServerResponse, uid: string, problem: string): void {
  const escape = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  res.statusCode = problem ? 400 : 200;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.end(`<!doctype html><title>Test provider sign-in</title>
<form method="post" action="/interaction/${uid}/login">${problem ? `<p role="alert">${escape(problem)}</p>` : ''}
<label>Account <input name="login" autofocus></label> <button id="sign-in" type="submit">Sign in</button></form>
<form method="post" action="/interaction/${uid}/deny"><button id="deny" type="submit">Deny</button></form>`);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function completeAuthorization(issuer: string, authorizationUrl: string, answer?: OidcLoginAnswer): Promise<string> {
  const jar = new Map<string, string>();
  const issuerOrigin = new URL(issuer).origin;
  let request: { url: string; body?: string } = { url: authorizationUrl };
  for (let hop = 0; hop < 20; hop++) {
    const response = await fetch(request.url, {
      method: request.body === undefined ? 'GET' : 'POST',
      body: request.body,
      redirect: 'manual',
      headers: {
        cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(request.body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
    });
    keepCookies(jar, response.headers.getSetCookie());
    const text = await response.text();
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      const next = new URL(location, request.url).href;
      if (new URL(next).origin !== issuerOrigin) return next;
      request = { url: next };
    } else if (response.status === 200 && /\/interaction\/[^/]+$/.test(new URL(request.url).pathname)) {
      if (!answer) throw new Error('the test provider showed its login form and completeAuthorization was given no answer');
      request = 'deny' in answer ? { url: `${request.url}/deny`, body: '' } : { url: `${request.url}/login`, body: new URLSearchParams({ login: answer.login }).toString() };
    } else {
      throw new Error(`the test provider answered ${response.status} at ${request.url}: ${text.slice(0, 500)}`);
    }
  }
  throw new Error('the test provider redirected more than 20 times');
}

/** A jar for one host: paths are ignored (oidc-provider's cookie names differ), expired cookies dropped. */
function keepCookies(jar: Map<string, string>, setCookies: string[]): void {
  for (const line of setCookies) {
    const [pair, ...attributes] = line.split(';');
    const separator = pair.indexOf('=');
    const name = pair.slice(0, separator).trim();
    const value = pair.slice(separator + 1).trim();
    const expired = attributes.some((attribute) => {
      const [key, setting = ''] = attribute.split('=').map((part) => part.trim());
      return (key.toLowerCase() === 'expires' && Date.parse(setting) < Date.now()) || (key.toLowerCase() === 'max-age' && Number(setting) <= 0);
    });
    if (expired || value === '') jar.delete(name);
    else jar.set(name, value);
  }
}
