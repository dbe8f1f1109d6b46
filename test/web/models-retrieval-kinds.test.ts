import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retrievalCatalogYaml } from '../catalog/retrieval-catalog-yaml.js';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { browserAvailable, buildPage, launchChromium, openPage, saveScreenshot, type PageProblems } from './browser.js';

/** The page's Models view over a catalog with an embedding, three rerank and a moderation model. */
describe.runIf(browserAvailable())('the Models view shows embedding, rerank and moderation models in Chromium', { timeout: 120_000 }, () => {
  let gateway: SimulatedGateway;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;

  beforeAll(async () => {
    buildPage();
    gateway = await startSimulatedGateway({ catalogYaml: retrievalCatalogYaml });
    browser = await launchChromium();
    ({ page, problems } = await openPage(browser, `${gateway.url}/`));
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  it('lists each kind with its unit price: per 1M tokens, per 1K searches', async () => {
    await page.getByLabel('API key or admin token').fill(gateway.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Balance and credits' }).waitFor();
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Models', exact: true }).click();
    const table = page.getByRole('table', { name: 'Model catalog' });
    const cells = async (id: string) => {
      const row = table.getByRole('row', { name: new RegExp(`^${id.replace(/[./]/g, '\\$&')}`) });
      return row.locator('td').allTextContents();
    };
    // Columns: kind, context, prompt / 1M, completion / 1M, unit price, endpoints.
    await expect.poll(() => cells('openai/text-embedding-3-small')).toEqual(['Embeddings', '8,192', '$0.02', '—', '—', 'embeddings']);
    expect(await cells('cohere/rerank-v3.5')).toEqual(['Rerank', '—', '$0', '—', '$2 / 1K searches', 'rerank']);
    expect(await cells('jina/jina-reranker-v2-base-multilingual')).toEqual(['Rerank', '—', '$0', '—', '$0.5 / 1K searches', 'rerank']);
    expect(await cells('voyage/rerank-2.5')).toEqual(['Rerank', '—', '$0.05', '—', '—', 'rerank']);
    expect(await cells('openai/omni-moderation-latest')).toEqual(['Moderation', '—', '$0', '—', '—', 'moderations']);
    expect(await cells('sim/chat')).toEqual(['text', '8,000', '$1', '$2', '—', 'chat, responses, messages']);
    await saveScreenshot(page, 'models-retrieval-kinds');
    expect(problems).toEqual({ dialogs: [], consoleErrors: [], pageErrors: [] });
  });
});
