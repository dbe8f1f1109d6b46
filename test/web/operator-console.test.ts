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
  const nav = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name, exact: true }).click();
  const accountRows = () => page.getByRole('table', { name: 'Accounts' }).locator('tbody tr');

  beforeAll(async () => {
    buildPage();
    gateway = await startSimulatedGateway({
      credits: 10,
      configure: (config) => {
        // A provider listed without a key: the console must say so.
        config.providers.push({ ...config.providers[0], id: 'sim-keyless', name: 'Sim Keyless', auth: { kind: 'none' }, enabled: false });
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
    await page.getByRole('button', { name: 'Bravo Bakery' }).click();
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
    await saveScreenshot(page, 'operator-account');
  });

  it('lists an account\u2019s keys and revokes one', async () => {
    const extra = (await (await sendJson(gateway, managementKeys['Bravo Bakery'], 'POST', '/v1/keys', { name: 'bakery-till' })).json()) as Json;
    await page.getByRole('button', { name: 'Back to accounts' }).click();
    await page.getByRole('button', { name: 'Bravo Bakery' }).click();
    const keys = page.getByRole('table', { name: 'Keys of the account' });
    await expect.poll(() => keys.locator('tbody th').allTextContents()).toEqual(['bakery-till', 'managementmanagement']);
    await page.getByRole('button', { name: 'Revoke bakery-till' }).click();
    await expect.poll(() => keys.locator('tbody tr').count()).toBe(1);
    expect((await sendJson(gateway, extra.key, 'GET', '/v1/credits')).status).toBe(401);
  });

  it('shows an endpoint\u2019s breaker open after failures, and the provider without a key', async () => {
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
    expect(await page.getByRole('note').textContent()).toContain('Sim Keyless');
    await saveScreenshot(page, 'operator-health');
    expect(problems.dialogs).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
  });
});
