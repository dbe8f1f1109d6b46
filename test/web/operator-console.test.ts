import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUsd } from '../../web/src/format.js';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { browserAvailable, buildPage, launchChromium, openPage, saveScreenshot, type PageProblems } from './browser.js';

// Node 20's fetch types answer `unknown`; these tests read the shapes they assert.
type Json = any;

describe.runIf(browserAvailable())('the operator console in Chromium', { timeout: 120_000 }, () => {
  let gateway: SimulatedGateway;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  const accounts: Record<string, string> = {};
  const managementKeys: Record<string, string> = {};

  const admin = async (method: string, path: string, body?: unknown): Promise<Json> =>
    (await sendJson(gateway, gateway.test.adminToken, method, path, body)).json();
  const nav = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true }).click();
  const accountRows = () => page.getByRole('table', { name: 'Accounts' }).locator('tbody tr');

  beforeAll(async () => {
    buildPage();
    gateway = await startSimulatedGateway({
      credits: 10,
      configure: (config) => {
        // The simulator needs no key, as a local Ollama or vLLM: it is routed, and the console must say so.
        config.providers[0].auth = { kind: 'none' };
        // A provider whose key variable is unset: off, and the console must say why.
        config.providers.push({ ...config.providers[1], id: 'sim-unset', name: 'Sim Unset', auth: { kind: 'none' }, apiKeyVariable: 'SIM_UNSET_API_KEY', enabled: false });
      },
    });
    for (const name of ['Alpha Analytics', 'Bravo Bakery', 'Charlie Chess']) {
      const created = await gateway.test.createAccount({ name, credits: 3 });
      accounts[name] = created.accountId;
      managementKeys[name] = created.key;
    }
    browser = await launchChromium();
    ({ page, problems } = await openPage(browser, `${gateway.url}/`));
    await page.getByLabel('API key or admin token').fill(gateway.test.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Switchyard operator console' }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  it('lists and searches accounts', async () => {
    const listed = (await admin('GET', '/admin/accounts')).data as Json[];
    await expect.poll(() => accountRows().count()).toBe(listed.length);
    expect(await accountRows().locator('th').allTextContents()).toEqual(listed.map((account) => account.name));
    await saveScreenshot(page, 'operator-accounts');
    await page.getByLabel('Search accounts (name or id)').fill('bravo');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => accountRows().count()).toBe(1);
    expect(await accountRows().getAttribute('data-account-id')).toBe(accounts['Bravo Bakery']);
  });

  it('grants credits and shows the new balance', async () => {
    await page.getByRole('link', { name: 'Bravo Bakery' }).click();
    // The account has a URL of its own: a reload keeps it, Back returns to the list.
    await expect.poll(() => page.url()).toBe(`${gateway.url}/#/accounts/${accounts['Bravo Bakery']}`);
    await page.reload();
    await page.getByRole('heading', { name: 'Account Bravo Bakery' }).waitFor();
    await page.goBack();
    await expect.poll(() => accountRows().count()).toBe(1);
    await page.goForward();
    const balance = page.getByLabel('Account balance');
    await expect.poll(() => balance.textContent()).toContain(`Balance${formatUsd(3)}`);
    await page.getByLabel('Credits to grant (USD)').fill('2.5');
    await page.getByRole('button', { name: 'Grant credits' }).click();
    await expect.poll(() => balance.textContent()).toContain(`Balance${formatUsd(5.5)}`);
    expect((await admin('GET', `/admin/accounts/${accounts['Bravo Bakery']}`)).data.balance).toBe(5.5);
    await page.getByRole('button', { name: 'Mark as linked' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Messenger link' }).locator('.link-status').textContent()).toBe('Messenger: linked');
    expect((await admin('GET', `/admin/accounts/${accounts['Bravo Bakery']}`)).data.messenger_linked).toBe(true);
    await page.getByRole('button', { name: 'Unlink messenger' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Messenger link' }).locator('.link-status').textContent()).toBe('Messenger: not linked');
    // No bot runs here: the API issues no code, and the console shows why.
    await page.getByRole('button', { name: 'Issue a link code' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('runs no Telegram bot');
    expect(await page.getByRole('region', { name: 'Messenger link' }).locator('code').count()).toBe(0);
    await saveScreenshot(page, 'operator-account');
  });

  it('lists an account\u2019s keys and revokes one', async () => {
    const extra = (await (await sendJson(gateway, managementKeys['Bravo Bakery'], 'POST', '/v1/keys', { name: 'bakery-till' })).json()) as Json;
    await page.getByRole('button', { name: 'Back to accounts' }).click();
    await page.getByRole('link', { name: 'Bravo Bakery' }).click();
    const keys = page.getByRole('table', { name: 'Keys of the account' });
    await expect.poll(() => keys.locator('tbody th').allTextContents()).toEqual(['bakery-till', 'managementmanagement']);
    await page.getByRole('button', { name: 'Revoke bakery-till' }).click();
    await expect.poll(() => keys.locator('tbody tr').count()).toBe(1);
    expect((await sendJson(gateway, extra.key, 'GET', '/v1/credits')).status).toBe(401);
  });

  it('shows the account\u2019s audit log, filtered by a family of actions', async () => {
    const log = page.getByRole('table', { name: 'Audit log of the account' });
    const actions = () => log.locator('tbody th').allTextContents();
    // Newest first: the console's revoke, then the key's creation by the management key.
    await expect.poll(async () => (await actions()).slice(0, 2)).toEqual(['key.revoke', 'key.create']);
    expect((await actions()).sort()).toEqual(['key.create', 'key.create', 'key.revoke', 'money.grant', 'money.grant']);
    expect(await log.locator('tbody tr').first().locator('td').nth(1).textContent()).toBe('admin admin');
    await page.getByRole('combobox', { name: /^Action/ }).selectOption('money');
    await expect.poll(actions).toEqual(['money.grant', 'money.grant']);
    await saveScreenshot(page, 'operator-account-audit');
  });

  it('shows an endpoint\u2019s breaker open after failures, a keyless provider as routed, and one whose key is not set as not', async () => {
    for (let index = 0; index < 5; index += 1) {
      const failed = await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', { model: 'sim/gemini-model', messages: [{ role: 'user', content: 'x [[sim:status=500]]' }] });
      expect(failed.status).toBeGreaterThanOrEqual(500);
    }
    expect((await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', { model: 'sim/openai-model', messages: [{ role: 'user', content: 'fine' }] })).status).toBe(200);
    await nav('Provider health');
    const failing = page.locator('tr[data-endpoint="sim-gemini/gemini-sim"]');
    await expect.poll(() => failing.locator('.circuit').textContent()).toBe('open');
    expect(await failing.locator('td').nth(3).textContent()).toBe('100%');
    const healthy = page.locator('tr[data-endpoint="sim-openai/gpt-sim"]');
    expect(await healthy.locator('.circuit').textContent()).toBe('closed');
    expect(await healthy.locator('td').nth(3).textContent()).toBe('0%');
    // The simulator serving the successful call needs no key: routed, not listed among the unrouted.
    expect(await healthy.locator('th').textContent()).toContain('no key needed');
    expect(await healthy.locator('th').textContent()).not.toContain('not routed');
    const note = await page.getByRole('note').textContent();
    expect(note).toBe('Not routed: Sim Unset (API key not set)');
    expect(await page.locator('tr[data-endpoint^="sim-unset/"]').count()).toBe(0);
    await saveScreenshot(page, 'operator-health');
    expect(problems.dialogs).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
  });

  it('offers no Telegram link on the account page when no bot runs', async () => {
    // Opened at the view's URL before signing in: the page lands there once signed in.
    const { context, page: accountPage, problems: accountProblems } = await openPage(browser, `${gateway.url}/#/messenger`);
    await accountPage.getByLabel('API key or admin token').fill(managementKeys['Alpha Analytics']);
    await accountPage.getByRole('button', { name: 'Sign in' }).click();
    await accountPage.getByRole('heading', { name: 'Messenger' }).waitFor();
    await expect.poll(() => accountPage.getByRole('note').textContent()).toContain('runs no Telegram bot');
    expect(await accountPage.getByRole('button', { name: 'Link Telegram' }).count()).toBe(0);
    expect(await accountPage.locator('.link-status').textContent()).toBe('Not linked');
    await saveScreenshot(accountPage, 'messenger-no-bot');
    expect(accountProblems.pageErrors).toEqual([]);
    await context.close();
  });
});
