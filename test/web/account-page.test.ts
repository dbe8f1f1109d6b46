import pino from 'pino';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatInteger, formatUsd } from '../../web/src/format.js';
import { startFakeTelegramBotApi, type FakeTelegramBotApi } from '../helpers/fake-telegram-bot-api.js';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { browserAvailable, buildPage, launchChromium, openPage, readAxisTicks, readChart, saveScreenshot, type PageProblems } from './browser.js';

// Node 20's fetch types answer `unknown`; these tests read the shapes they assert.
type Json = any;

const botUsername = 'switchyard_page_bot';
const webhookSecret = 'page-webhook-secret_0123';
const xssName = '<img src=x onerror=alert(1)>';

describe.runIf(browserAvailable())('the account page in Chromium', { timeout: 120_000 }, () => {
  let gateway: SimulatedGateway;
  let bot: FakeTelegramBotApi;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  // Every secret the page handled, checked against the gateway's log at the end.
  const secrets: string[] = [];
  const logLines: string[] = [];

  const api = async (key: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const response = await sendJson(gateway, key, method, path, body);
    return { status: response.status, body: await response.json(), id: response.headers.get('x-request-id') };
  };
  const chat = async (key: string, model: string, content: string) => {
    const answer = await api(key, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content }], max_tokens: 20 });
    expect(answer.status).toBe(200);
    return answer.id as string;
  };
  const nav = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true }).click();
  const optionsOf = (label: string) =>
    page.getByLabel(label, { exact: true }).locator('option').evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value));
  const signIn = async (token: string) => {
    await page.getByLabel('API key or admin token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  const keyCard = (name: string) => page.getByRole('list', { name: 'Active keys' }).getByRole('listitem', { name: `Key ${name}` });

  beforeAll(async () => {
    buildPage();
    bot = await startFakeTelegramBotApi();
    gateway = await startSimulatedGateway({
      credits: 100,
      logger: pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) }),
      configure: (config) => {
        config.server.telegram = { botToken: '123456:page-test-token', webhookSecret, apiBaseUrl: bot.url, botUsername };
      },
    });
    browser = await launchChromium();
    ({ page, problems } = await openPage(browser, `${gateway.url}/`));
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await bot?.close();
  });

  it('tells a wrong key clearly, and keeps keys out of the URL', async () => {
    await saveScreenshot(page, 'sign-in');
    await signIn('sy_this-key-does-not-exist-0123456789abcdefghij');
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('This key was not accepted');
    expect(page.url()).toBe(`${gateway.url}/`);
  });

  it('signs in with a management key and shows the balance the API reports', async () => {
    await signIn(gateway.key);
    await page.getByRole('heading', { name: 'Balance and credits' }).waitFor();
    const credits = (await api(gateway.key, 'GET', '/v1/credits')).body.data;
    const stats = page.getByLabel('Balance figures');
    await expect.poll(() => stats.textContent()).toContain(`Balance${formatUsd(credits.balance)}`);
    expect(await stats.textContent()).toContain(`Total credits${formatUsd(100)}`);
    // The key's own figures (GET /v1/key): the management key has no limit of its own.
    await expect.poll(() => page.getByTestId('own-key').textContent()).toContain('Spending limitNo limit');
    expect(await page.getByRole('heading', { name: 'This key: management' }).count()).toBe(1);
    expect(page.url()).toBe(`${gateway.url}/#/balance`);
    // The key lives in sessionStorage only, never in the URL.
    expect(page.url()).not.toContain(gateway.key);
    expect(await page.evaluate(() => JSON.stringify((globalThis as any).localStorage))).not.toContain('sy_');
    await saveScreenshot(page, 'balance');
  });

  it('creates a key whose secret is shown once and works, sets and shows a limit, and revokes it', async () => {
    await nav('Keys');
    await page.getByLabel('Key name').fill('ci-key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-key-secret').textContent())!.trim();
    expect(secret).toMatch(/^sy_[A-Za-z0-9_-]{40,}$/);
    secrets.push(secret);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gateway.url });
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>)).toBe(secret);
    await saveScreenshot(page, 'keys-new-secret');
    await chat(secret, 'sim/openai-model', 'from the new key');
    await page.getByRole('button', { name: 'I have saved it' }).click();
    expect(await page.getByTestId('new-key-secret').count()).toBe(0);

    await keyCard('ci-key').getByRole('button', { name: 'Edit limits of ci-key' }).click();
    await page.getByRole('form', { name: 'Limits of ci-key' }).getByLabel('Spending limit (USD)').fill('5');
    await page.getByRole('form', { name: 'Limits of ci-key' }).getByLabel('Max prompt price (USD per 1M tokens)').fill('2');
    await page.getByRole('form', { name: 'Limits of ci-key' }).getByLabel('Model for a per-model max price').fill('sim/openai-model');
    await page.getByRole('form', { name: 'Limits of ci-key' }).getByLabel('Model max completion price').fill('0.5');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await expect.poll(() => keyCard('ci-key').textContent()).toContain(`sim/openai-model: prompt —, completion ${formatUsd(0.5)} per 1M`);
    const listed = (await api(gateway.key, 'GET', '/v1/keys')).body.data.find((key: Json) => key.name === 'ci-key');
    expect(listed).toMatchObject({ limit: 5, max_price: { prompt: 2, completion: null }, model_max_prices: { 'sim/openai-model': { prompt: null, completion: 0.5 } } });
    // The per-model cap is enforced: the model's $2 completion price is now above this key's maximum.
    const capped = await api(secret, 'POST', '/v1/chat/completions', { model: 'sim/openai-model', messages: [{ role: 'user', content: 'capped' }] });
    expect(capped.status).toBe(503);
    await expect.poll(() => keyCard('ci-key').locator('.key-limit').textContent()).toBe(`${formatUsd(5)} (${formatUsd(listed.limit_remaining)} left)`);
    expect(await keyCard('ci-key').locator('.key-max-price').textContent()).toContain(`prompt ${formatUsd(2)}`);

    await keyCard('ci-key').getByRole('button', { name: 'Revoke ci-key' }).click();
    await page.getByRole('button', { name: 'Confirm revoking ci-key' }).click();
    await expect.poll(() => keyCard('ci-key').count()).toBe(0);
    expect((await api(secret, 'GET', '/v1/credits')).status).toBe(401);
  });

  it('renders a key named like markup as text', async () => {
    await page.getByLabel('Key name').fill(xssName);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('button', { name: 'I have saved it' }).click();
    const name = keyCard(xssName).locator('.key-name');
    await expect.poll(() => name.textContent()).toBe(xssName);
    expect(await page.locator('.key-list img').count()).toBe(0);
    expect(problems.dialogs).toEqual([]);
    await saveScreenshot(page, 'keys');
  });

  it('charts the usage of simulated requests and lists them in the request log', async () => {
    const ids = [
      await chat(gateway.key, 'sim/anthropic-model', 'one'),
      await chat(gateway.key, 'sim/anthropic-model', 'two'),
      await chat(gateway.key, 'sim/gemini-model', 'three'),
    ];
    await gateway.test.context.requestLog.flush();
    const usage = (await api(gateway.key, 'GET', '/v1/usage')).body.data;

    await nav('Usage');
    const byModel = await readChart(page, 'model');
    expect(byModel.labels).toEqual(usage.by_model.map((row: Json) => row.model));
    expect(byModel.values).toEqual(usage.by_model.map((row: Json) => row.cost));
    const anthropicIndex = byModel.labels.indexOf('sim/anthropic-model');
    expect(usage.by_model[anthropicIndex].requests).toBe(2);
    expect(byModel.values[anthropicIndex]).toBeGreaterThan(0);
    const byDay = await readChart(page, 'day');
    expect(byDay.values).toEqual([usage.total.cost]);
    // Keys are named from the key list; the management key made three of these four requests.
    const byKey = await readChart(page, 'key_id');
    expect(byKey.values).toEqual(usage.by_key.map((row: Json) => row.cost));
    expect(byKey.labels[0]).toBe('management');
    expect(usage.by_key[0].requests).toBe(3);
    const byProvider = await readChart(page, 'provider');
    expect(byProvider.labels.sort()).toEqual(['sim-anthropic', 'sim-gemini', 'sim-openai']);
    // The accessible table beside the chart carries the same rows.
    const anthropicRow = page.getByRole('table', { name: 'Cost by model (table)' }).getByRole('row', { name: /sim\/anthropic-model/ });
    expect(await anthropicRow.locator('td').allTextContents()).toEqual([
      '2',
      formatInteger(usage.by_model[anthropicIndex].prompt_tokens),
      formatInteger(usage.by_model[anthropicIndex].completion_tokens),
      formatUsd(usage.by_model[anthropicIndex].cost),
    ]);
    expect(await page.getByLabel('Usage totals').textContent()).toContain(`Requests${formatInteger(usage.total.requests)}`);
    await saveScreenshot(page, 'usage');

    // One money format along each axis: every tick with the same number of decimals.
    for (const grouping of ['day', 'model', 'provider', 'key_id']) {
      const ticks = await readAxisTicks(page, grouping);
      expect(ticks.length).toBeGreaterThan(1);
      const decimals = new Set(ticks.map((tick) => /^\$\d+(?:\.(\d+))?$/.exec(tick)?.[1]?.length ?? -1));
      expect([...decimals]).toHaveLength(1);
      expect([...decimals][0]).toBeGreaterThanOrEqual(2);
    }

    await nav('Requests');
    const log = page.getByRole('table', { name: 'Request log' });
    await log.waitFor();
    for (const id of ids) expect(await log.locator(`tr[data-request-id="${id}"]`).count()).toBe(1);
    // The filters are choices from the account's data: the catalog's models and providers, the account's keys.
    const catalog = (await api(gateway.key, 'GET', '/v1/providers')).body.data;
    await expect.poll(() => optionsOf('Model')).toEqual(['', ...catalog.map((row: Json) => row.model)]);
    expect((await optionsOf('Provider')).sort()).toEqual(['', 'sim-anthropic', 'sim-gemini', 'sim-openai']);
    const keys = (await api(gateway.key, 'GET', '/v1/keys')).body.data;
    await expect.poll(() => optionsOf('Key')).toEqual(['', ...keys.map((key: Json) => key.id)]);
    expect(await page.getByLabel('Key', { exact: true }).locator('option').allTextContents()).toEqual(['any', ...keys.map((key: Json) => key.name)]);
    await page.getByLabel('Model', { exact: true }).selectOption('sim/anthropic-model');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => log.locator('tbody tr').count()).toBe(2);
    const detail = (await api(gateway.key, 'GET', `/v1/requests/${ids[0]}`)).body.data;
    await page.getByRole('link', { name: `Details of ${ids[0]}` }).click();
    const details = page.getByRole('region', { name: 'Request details' });
    await expect.poll(() => details.textContent()).toContain(`Cost${formatUsd(detail.cost)}`);
    expect(await details.textContent()).toContain(`Prompt tokens${formatInteger(detail.usage.prompt_tokens)}`);
    expect(await details.textContent()).toContain(`Keymanagement${detail.key_id}`);
    // The request and its filters have a URL: a reload keeps both, Back closes the details, Forward reopens them.
    expect(page.url()).toBe(`${gateway.url}/#/requests/${ids[0]}?model=sim%2Fanthropic-model`);
    await page.reload();
    await expect.poll(() => details.textContent()).toContain(`Cost${formatUsd(detail.cost)}`);
    expect(await page.getByLabel('Model', { exact: true }).inputValue()).toBe('sim/anthropic-model');
    await expect.poll(() => log.locator('tbody tr').count()).toBe(2);
    await saveScreenshot(page, 'requests');
    await page.goBack();
    await expect.poll(() => details.count()).toBe(0);
    expect(page.url()).toBe(`${gateway.url}/#/requests?model=sim%2Fanthropic-model`);
    await page.goForward();
    await details.waitFor();
    // A filter that keeps the open request keeps it open; one that excludes it closes it.
    await page.getByLabel('Status').selectOption('completed');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.url()).toBe(`${gateway.url}/#/requests/${ids[0]}?model=sim%2Fanthropic-model&status=completed`);
    expect(await details.count()).toBe(1);
    await page.getByLabel('Model', { exact: true }).selectOption('sim/gemini-model');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => details.count()).toBe(0);
    await expect.poll(() => log.locator('tbody tr').count()).toBe(1);
    expect(await log.locator('tbody tr').getAttribute('data-request-id')).toBe(ids[2]);

    // Paging: 20 rows a page, the next page holds the rest, in the API's order.
    for (let index = 0; index < 20; index += 1) await chat(gateway.key, 'sim/openai-model', `page ${index}`);
    await gateway.test.context.requestLog.flush();
    const all = (await api(gateway.key, 'GET', '/v1/requests?limit=500')).body.data.map((row: Json) => row.id);
    expect(all.length).toBeGreaterThan(20);
    await page.getByLabel('Model', { exact: true }).selectOption('');
    await page.getByLabel('Status').selectOption('');
    await page.getByRole('button', { name: 'Filter' }).click();
    const shownIds = () => log.locator('tbody tr').evaluateAll((rows) => rows.map((row) => (row as unknown as { dataset: { requestId: string } }).dataset.requestId));
    await expect.poll(shownIds).toEqual(all.slice(0, 20));
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(shownIds).toEqual(all.slice(20, 40));
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(shownIds).toEqual(all.slice(0, 20));
  });

  it('says on the log why a request was refused, and shows who asked and what was left out', async () => {
    const capped = (await api(gateway.key, 'POST', '/v1/keys', { name: 'capped', limit: 0.000001 })).body.key as string;
    secrets.push(capped);
    const refused = await api(capped, 'POST', '/v1/chat/completions', { model: 'sim/openai-model', messages: [{ role: 'user', content: 'too dear' }], max_tokens: 100 });
    expect(refused.status).toBe(402);
    // A web search is offered, not required: the endpoint has none, so the gateway serves without it and says so.
    const served = await api(gateway.key, 'POST', '/v1/chat/completions', { model: 'sim/anthropic-model', messages: [{ role: 'user', content: 'hi' }], web_search_options: {}, user: 'shopper-42' });
    expect(served.status).toBe(200);
    await gateway.test.context.requestLog.flush();

    await page.getByLabel('Status').selectOption('refused');
    await page.getByRole('button', { name: 'Filter' }).click();
    const row = page.getByRole('table', { name: 'Request log' }).locator(`tr[data-request-id="${refused.id}"]`);
    await expect.poll(() => row.locator('.request-error-code').textContent()).toBe('insufficient_balance');
    await row.getByRole('link').click();
    const details = page.getByRole('region', { name: 'Request details' });
    await expect.poll(() => details.textContent()).toContain(`Errorinsufficient_balance${refused.body.error.message}`);
    expect(await details.textContent()).toContain('Keycapped');
    await saveScreenshot(page, 'requests-refused');

    await page.getByLabel('Status').selectOption('');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('link', { name: `Details of ${served.id}` }).click();
    await expect.poll(() => details.textContent()).toContain('End usershopper-42');
    expect(await details.textContent()).toContain('Left outweb_search_options');
    expect(await details.textContent()).not.toContain('Error');
  });

  it('shows default providers and the model catalog with prices', async () => {
    await nav('Default providers');
    const select = page.getByLabel('Default provider for sim/everywhere');
    await select.selectOption('sim-gemini');
    await expect.poll(async () => (await api(gateway.key, 'GET', '/v1/providers')).body.data.find((row: Json) => row.model === 'sim/everywhere').default_provider).toBe('sim-gemini');
    await saveScreenshot(page, 'providers');
    await nav('Models');
    const row = page.getByRole('table', { name: 'Model catalog' }).getByRole('row', { name: /sim\/everywhere/ });
    // The catalog's cheapest endpoint: $1 prompt, $2 completion per 1M tokens.
    expect(await row.locator('td').nth(2).textContent()).toBe('$1');
    expect(await row.locator('td').nth(3).textContent()).toBe('$2');
    await saveScreenshot(page, 'models');
  });

  it('links Telegram through the bot and sees the status change', async () => {
    await nav('Messenger');
    const status = page.locator('.link-status');
    await expect.poll(() => status.textContent()).toBe('Not linked');
    await page.getByRole('button', { name: 'Link Telegram' }).click();
    const link = page.getByRole('region', { name: 'Telegram link code' }).getByRole('link');
    const deepLink = (await link.getAttribute('href'))!;
    expect(deepLink).toMatch(new RegExp(`^https://t\\.me/${botUsername}\\?start=[A-Za-z0-9_-]{22}$`));
    await saveScreenshot(page, 'messenger-code');
    const code = new URL(deepLink).searchParams.get('start');
    const webhook = await fetch(`${gateway.url}/webhooks/telegram`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': webhookSecret },
      body: JSON.stringify({
        update_id: 77,
        message: { message_id: 1, date: 1_795_000_000, chat: { id: 4242, type: 'private' }, from: { id: 4242, is_bot: false, first_name: 'Ada' }, text: `/start ${code}` },
      }),
    });
    expect(webhook.status).toBe(200);
    const [reply] = await bot.waitForCalls(1);
    expect(reply.body.chat_id).toBe(4242);
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toMatch(/^Linked \(telegram\) since /);
    await saveScreenshot(page, 'messenger-linked');
  });

  it('gives an ordinary key only its own view, and fits a phone-width screen', async () => {
    const ordinary = (await api(gateway.key, 'POST', '/v1/keys', { name: 'phone', limit: 0.001 })).body.key as string;
    secrets.push(ordinary);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(ordinary);
    await page.getByRole('heading', { name: 'Balance and credits' }).waitFor();
    const tabs = await page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allTextContents();
    expect(tabs).toEqual(['Balance', 'Usage', 'Requests', 'Default providers', 'Models']);
    await nav('Usage');
    await expect.poll(() => page.locator('.status.empty').textContent()).toBe('No requests in this period yet.');
    // An ordinary key's request log holds its own requests only, as the API decides.
    const own = await chat(ordinary, 'sim/openai-model', 'from the phone');
    // Over the key's own limit: 402 with limit_type key_limit, while the account has plenty.
    const overLimit = await api(ordinary, 'POST', '/v1/chat/completions', { model: 'sim/openai-model', messages: [{ role: 'user', content: 'long' }], max_tokens: 1000 });
    expect(overLimit.status).toBe(402);
    expect(overLimit.body.error.metadata.limit_type).toBe('key_limit');
    await gateway.test.context.requestLog.flush();
    await nav('Requests');
    const rows = page.getByRole('table', { name: 'Request log' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(1).getAttribute('data-request-id')).toBe(own);
    expect(await rows.nth(0).locator('.request-error-code').textContent()).toBe('insufficient_balance');
    expect(await page.getByLabel('Key', { exact: true }).count()).toBe(0);
    const pageWidth = () => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
    // The wide log scrolls inside its own box; the page itself does not scroll sideways.
    expect(await pageWidth()).toBeLessThanOrEqual(390);
    await saveScreenshot(page, 'phone-requests');
    // What the key needs after its 402: its own limit, what it used and what is left.
    await nav('Balance');
    const key = (await api(ordinary, 'GET', '/v1/key')).body.data;
    const figures = page.getByTestId('own-key');
    await expect.poll(() => figures.textContent()).toBe(`Spending limit${formatUsd(0.001)}Used${formatUsd(key.usage)}Left of the limit${formatUsd(key.limit_remaining)}`);
    expect(key.usage).toBeGreaterThan(0);
    await saveScreenshot(page, 'phone-balance');
    await nav('Usage');
    await expect.poll(() => page.getByLabel('Usage totals').textContent()).toContain('Requests1');
    // Nothing wider than the screen: no horizontal scrolling of the page itself.
    expect(await pageWidth()).toBeLessThanOrEqual(390);
    await saveScreenshot(page, 'phone-usage');
    expect(problems.dialogs).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    expect(problems.consoleErrors).toEqual([]);
  });

  it('never wrote a key into the gateway log', () => {
    expect(logLines.length).toBeGreaterThan(50);
    for (const secret of [gateway.key, ...secrets]) expect(logLines.filter((line) => line.includes(secret))).toEqual([]);
    expect(logLines.filter((line) => line.includes('sy_'))).toEqual([]);
  });
});
