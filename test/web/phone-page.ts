import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { PageProblems } from './browser.js';

/** The phone the storefront's pages are checked at. */
export const phone = { width: 390, height: 844 };

/**
 * A stand-in for Telegram's widget script (telegram.org is out of reach here), with the one call
 * the page makes: `Telegram.Login.auth(options, callback)` answers what the test put in
 * `__telegramAnswer` (the fields Telegram would sign, or false for a closed window) and keeps the
 * options it was called with.
 */
const telegramWidgetStandIn = `window.Telegram = { Login: { auth: function (options, callback) {
  window.__telegramOptions = options;
  setTimeout(function () { callback(window.__telegramAnswer || false); }, 0);
} } };`;

/**
 * A new browser (no cookies) at a phone's size, at `url`; telegram.org unreachable as it is here,
 * or its widget script stood in for. Closed with the `contexts` the caller closes after its tests.
 */
export async function openPhonePage(
  browser: Browser,
  url: string,
  contexts: BrowserContext[],
  telegram: 'offline' | 'stand-in' = 'offline',
): Promise<{ page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ viewport: phone });
  contexts.push(context);
  await context.route('https://telegram.org/**', (route) =>
    telegram === 'offline' ? route.abort('internetdisconnected') : route.fulfill({ contentType: 'text/javascript', body: telegramWidgetStandIn }),
  );
  const page = await context.newPage();
  const problems: PageProblems = { dialogs: [], consoleErrors: [], pageErrors: [] };
  page.on('dialog', (dialog) => {
    problems.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => problems.pageErrors.push(error.message));
  await page.goto(url);
  return { page, problems };
}

/** Opens a section of the page by its navigation link. */
export const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true }).click();

/** The document's width: at most the phone's when nothing overflows sideways. */
export const pageWidth = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);

/** Signs out from the shell and checks the cookie session ended. */
export async function signOut(page: Page, publicUrl: string): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('API key or admin token').waitFor();
  expect((await page.context().request.get(`${publicUrl}/auth/session`)).status()).toBe(401);
}
