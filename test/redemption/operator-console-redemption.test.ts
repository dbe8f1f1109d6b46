import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { browserAvailable, buildPage, launchChromium, openPage, saveScreenshot, type PageProblems } from '../web/browser.js';

// Node 20's fetch types answer `unknown`; these tests read the shapes they assert.
type Json = any;

/**
 * The operator console's redemption view in Chromium at a phone's width: a batch is made, its
 * codes are shown once, copied as a CSV download that redeems, and the list counts the redemption.
 */
describe.runIf(browserAvailable())('redemption codes in the operator console', { timeout: 120_000 }, () => {
  let gateway: SimulatedGateway;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;

  beforeAll(async () => {
    buildPage();
    gateway = await startSimulatedGateway({ credits: 1 });
    browser = await launchChromium();
    ({ context, page, problems } = await openPage(browser, `${gateway.url}/#/redemption`, { width: 390, height: 844 }));
    await page.getByLabel('API key or admin token').fill(gateway.test.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Redemption codes' }).waitFor();
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await gateway?.close();
  });

  it('creates a batch on a phone, shows its codes once with a CSV download, and lists it with its redeemed count', async () => {
    await page.getByText('Create a batch').click();
    await page.getByLabel('Amount per code (USD)').fill('2.5');
    await page.getByLabel('Number of codes').fill('3');
    await page.getByLabel('Note (optional)').fill('spring fair');
    await page.getByRole('button', { name: 'Create codes' }).click();

    const shown = page.getByTestId('new-codes');
    await shown.waitFor();
    const codes = (await shown.textContent())!.trim().split('\n');
    expect(codes).toHaveLength(3);
    for (const code of codes) expect(code).toMatch(/^SY-[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8').trim().split('\n');
    expect(csv[0]).toBe('code,amount_usd,batch_id,expires_at');
    expect(csv.slice(1).map((line) => line.split(',')[0])).toEqual(codes);
    expect(csv[1].split(',')[1]).toBe('2.5');

    // Nothing wider than the phone's screen, codes included.
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await saveScreenshot(page, 'operator-redemption-phone');

    const [batch] = ((await (await sendJson(gateway, gateway.test.adminToken, 'GET', '/admin/redemption-codes')).json()) as Json).data as Json[];
    expect(batch).toMatchObject({ amount: 2.5, count: 3, redeemed: 0, note: 'spring fair' });
    const row = page.locator(`tr[data-batch-id="${batch.id}"]`);
    await expect.poll(() => row.getByTestId('redeemed').textContent()).toBe('0 of 3');

    // A customer redeems a code from the CSV; the list counts it once the view is opened again.
    const redeemed = await sendJson(gateway, gateway.key, 'POST', '/v1/credits/redeem', { code: csv[2].split(',')[0] });
    expect(redeemed.status).toBe(200);
    await page.getByRole('button', { name: 'I have saved them' }).click();
    expect(await page.getByTestId('new-codes').count()).toBe(0);
    await page.reload();
    await expect.poll(() => page.locator(`tr[data-batch-id="${batch.id}"]`).getByTestId('redeemed').textContent()).toBe('1 of 3');
    // Shown once: a reload does not bring the codes back.
    expect(await page.getByTestId('new-codes').count()).toBe(0);
    expect(problems.pageErrors).toEqual([]);
    expect(problems.consoleErrors).toEqual([]);
  });
});
