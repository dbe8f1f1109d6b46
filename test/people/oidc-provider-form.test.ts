import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOidcSignIn, type OidcSignIn } from '../../src/people/oidc/create-oidc-sign-in.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/start-oidc-provider.js';
import { browserAvailable, launchChromium } from '../web/browser.js';

// The test provider's login form, filled in by Chromium as the storefront's browser test will:
// the browser ends at the redirect URI (answered here by page.route, standing in for the gateway's
// callback route) with a code that the OIDC client turns into the identity.

const redirectUri = 'http://127.0.0.1:9/auth/oidc/test/callback';

describe.runIf(browserAvailable())('the test OpenID Provider in Chromium', { timeout: 60_000 }, () => {
  let idp: TestOidcProvider;
  let signIn: OidcSignIn;
  let browser: Browser;

  beforeAll(async () => {
    idp = await startOidcProvider({
      clients: [{ client_id: 'switchyard', client_secret: 'gateway-secret', redirect_uris: [redirectUri] }],
      accounts: [{ sub: 'alice', email: 'alice@example.com', email_verified: true, name: 'Alice Liddell' }],
    });
    signIn = createOidcSignIn({ providers: [{ id: 'test', name: 'Test IdP', issuer: idp.issuer, client_id: 'switchyard', client_secret: 'gateway-secret' }] });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await idp?.close();
  });

  /** Opens the authorization URL in a fresh context; resolves with the callback URL the browser was sent to. */
  async function openSignIn(authorizationUrl: string): Promise<{ page: Page; callback: Promise<string> }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const callback = new Promise<string>((resolve) => {
      void page.route(`${redirectUri}**`, (route) => {
        resolve(route.request().url());
        void route.fulfill({ status: 200, contentType: 'text/plain', body: 'callback reached' });
      });
    });
    await page.goto(authorizationUrl);
    return { page, callback };
  }

  it('signs in through the form', async () => {
    const start = await signIn.beginSignIn('test', { redirectUri });
    const { page, callback } = await openSignIn(start.authorizationUrl);
    await page.fill('input[name=login]', 'alice');
    await page.click('#sign-in');
    const callbackUrl = await callback;
    const identity = await signIn.finishSignIn('test', { callbackUrl, redirectUri, expected: start });
    expect(identity).toMatchObject({ subject: 'alice', email: 'alice@example.com', emailVerified: true });
  });

  it('says so for an unknown account, and sends access_denied for Deny', async () => {
    const start = await signIn.beginSignIn('test', { redirectUri });
    const { page, callback } = await openSignIn(start.authorizationUrl);
    await page.fill('input[name=login]', 'mallory');
    await page.click('#sign-in');
    await expect(page.locator('[role=alert]').textContent()).resolves.toContain('No account "mallory"');
    await page.click('#deny');
    const callbackUrl = await callback;
    expect(new URL(callbackUrl).searchParams.get('error')).toBe('access_denied');
    await expect(signIn.finishSignIn('test', { callbackUrl, redirectUri, expected: start })).rejects.toMatchObject({ status: 400, metadata: { reason: 'provider_refused' } });
  });
});
