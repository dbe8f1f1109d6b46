import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); playwright-core never downloads a browser. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Whether the browser suites run here. Without Chromium they are skipped out loud locally, but
 * under CI=true a missing browser is a failure, never a silent skip.
 */
export function browserAvailable(): boolean {
  if (existsSync(chromiumPath)) return true;
  if (process.env.CI === 'true') throw new Error(`Browser tests need Chromium at ${chromiumPath} under CI (apt-get install -y chromium)`);
  process.stdout.write(`Browser tests SKIPPED: no Chromium at ${chromiumPath} (apt-get install -y chromium)\n`);
  return false;
}

/** Builds web/ into dist/web when it is missing or stale, before any gateway loads the page. */
export function buildPage(): void {
  execFileSync(process.execPath, [resolve('scripts/ensure-build.mjs'), '--web'], { stdio: ['ignore', 'ignore', 'inherit'] });
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // As root in a sandbox-less container, on a machine without outside network.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export const screenshotDirectory = resolve('test/web/__screenshots__');

export async function saveScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotDirectory, { recursive: true });
  await page.screenshot({ path: join(screenshotDirectory, `${name}.png`), fullPage: true });
}

/** Everything the page must never do: script dialogs (an injected alert), CSP violations, page errors. */
export interface PageProblems {
  dialogs: string[];
  consoleErrors: string[];
  pageErrors: string[];
}

export async function openPage(browser: Browser, url: string, viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems: PageProblems = { dialogs: [], consoleErrors: [], pageErrors: [] };
  page.on('dialog', (dialog) => {
    problems.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('console', (message) => {
    // A failed API call is logged by the browser as a resource error; that is the page showing an error state, not a fault.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => problems.pageErrors.push(error.message));
  await page.goto(url);
  return { context, page, problems };
}

/** Reads what a Chart.js canvas drew (the labels and values it reads back from the chart). */
export async function readChart(page: Page, grouping: string): Promise<{ labels: string[]; values: number[] }> {
  const canvas = page.locator(`figure[data-grouping="${grouping}"] canvas`);
  await canvas.waitFor();
  // Runs in the page; typed loosely because this project's tests compile without the DOM library.
  return canvas.evaluate((element) => {
    const dataset = (element as unknown as { dataset: Record<string, string | undefined> }).dataset;
    return { labels: JSON.parse(dataset.labels ?? '[]') as string[], values: JSON.parse(dataset.values ?? '[]') as number[] };
  });
}

/** The money axis's tick labels as the chart drew them. */
export async function readAxisTicks(page: Page, grouping: string): Promise<string[]> {
  const canvas = page.locator(`figure[data-grouping="${grouping}"] canvas`);
  await canvas.waitFor();
  return canvas.evaluate((element) => JSON.parse((element as unknown as { dataset: Record<string, string | undefined> }).dataset.axisTicks ?? '[]') as string[]);
}
