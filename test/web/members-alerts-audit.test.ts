import OpenAI from 'openai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUsd } from '../../web/src/format.js';
import { startWebhookReceiver, type WebhookReceiver } from '../alerts/start-webhook-receiver.js';
import { freePort } from '../helpers/own-services.js';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe/fake-stripe.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/start-oidc-provider.js';
import { simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { browserAvailable, buildPage, launchChromium, saveScreenshot, type PageProblems } from './browser.js';
import { nav, openPhonePage, pageWidth, phone } from './phone-page.js';

// Node 20's fetch types answer `unknown`; these tests read the shapes they assert.
type Json = any;

const webhookSecret = 'page-test-webhook-secret-0123456789';

/**
 * Issue 49's page (scope 5) at a phone's size: members and invites (a second person signs up
 * through the invite page while sign-up is by invite only), a key's daily limit with its bar,
 * alert settings with a test alert to a local receiver that checks the signature, and the audit
 * log filtered. The steps share one gateway and run in order.
 */
describe.runIf(browserAvailable())('members, limits, alerts and the audit log in Chromium', { timeout: 180_000 }, () => {
  let publicUrl: string;
  let gateway: SimulatedGateway;
  let oidc: TestOidcProvider;
  let receiver: WebhookReceiver;
  let stripe: FakeStripe;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let owner: { page: Page; problems: PageProblems };
  let inviteUrl: string;
  let bob: { page: Page; problems: PageProblems };

  const signInWithIdp = async (page: Page, login: string) => {
    oidc.setAutoLogin({ login });
    await page.getByRole('link', { name: 'Continue with Test IdP' }).click();
  };
  const memberCard = (page: Page, name: string) => page.getByRole('list', { name: 'Members' }).getByRole('listitem', { name: `Member ${name}` });
  const pendingInvites = (page: Page) => page.getByRole('list', { name: 'Pending invites' }).getByRole('listitem');

  beforeAll(async () => {
    buildPage();
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    oidc = await startOidcProvider({
      clients: [{ client_id: 'switchyard-page', client_secret: 'oidc-test-secret', redirect_uris: [`${publicUrl}/auth/oidc/test-idp/callback`] }],
      accounts: [
        { sub: 'ada', email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace' },
        { sub: 'bob', email: 'bob@example.com', email_verified: true, name: 'Bob Babbage' },
      ],
    });
    receiver = await startWebhookReceiver(webhookSecret);
    // Card payments on, so that Billing has its auto top-up form (an owner's, read-only for an admin).
    stripe = await startFakeStripe();
    gateway = await startSimulatedGateway({
      port,
      // The receiver is on loopback: the operator's allow_private_urls lets alerts reach it.
      catalogYaml: (simulatorUrl) => `${simulatedCatalogYaml(simulatorUrl)}signup: {mode: open, bonus_credits: 5, allowed_email_domains: []}
alerts: {allow_private_urls: true, check_ms: 3600000}
payments:
  stripe: {secret_key: ${stripe.secretKey}, webhook_secret: ${stripe.webhookSecret}, api_base: "${stripe.url}"}
`,
      configure: (config) => {
        config.server.publicUrl = publicUrl;
        config.auth = {
          oidc: [{ id: 'test-idp', name: 'Test IdP', issuer: oidc.issuer, client_id: 'switchyard-page', client_secret: 'oidc-test-secret' }],
          telegram: { login: false },
          email: null,
        };
      },
    });
    browser = await launchChromium();
    owner = await openPhonePage(browser, `${publicUrl}/`, contexts);
    await signInWithIdp(owner.page, 'ada');
    await owner.page.getByRole('heading', { name: 'Billing' }).waitFor();
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await gateway?.close();
    await receiver?.close();
    await stripe?.close();
    await oidc?.close();
  });

  it('invites a second person, who signs up through the invite page while sign-up is by invite only and accepts; the owner changes the role and revokes another invite', async () => {
    const { page } = owner;
    await nav(page, 'Members');
    await expect.poll(() => memberCard(page, 'Ada Lovelace').getByTestId('member-role').textContent()).toBe('Owner');
    const invite = page.getByRole('form', { name: 'Invite someone' });
    await invite.getByLabel(/^Email/).fill('bob@example.com');
    await invite.getByLabel('Role').selectOption('member');
    await invite.getByRole('button', { name: 'Create invite link' }).click();
    inviteUrl = (await page.getByTestId('invite-url').textContent())!.trim();
    expect(inviteUrl).toMatch(new RegExp(`^${publicUrl.replace(/[.]/g, '\\.')}/invites/[A-Za-z0-9_-]{43}$`));
    await expect.poll(() => pendingInvites(page).count()).toBe(1);
    expect(await pendingInvites(page).first().textContent()).toContain('bob@example.com');
    expect(await pageWidth(page)).toBeLessThanOrEqual(phone.width);
    await saveScreenshot(page, 'members-invite');

    // Sign-up by invite only: Bob is a stranger, admitted only on his way back to the invite.
    gateway.test.context.config.signup!.mode = 'invite';
    try {
      bob = await openPhonePage(browser, inviteUrl, contexts);
      await expect.poll(() => bob.page.getByTestId('invite-summary').textContent()).toMatch(/You are invited to .+ as Member\./);
      expect(await bob.page.locator('.invite-summary').textContent()).toContain('For bob@example.com only');
      expect(await bob.page.getByLabel('API key or admin token').count()).toBe(0);
      const start = await bob.page.getByRole('link', { name: 'Continue with Test IdP' }).getAttribute('href');
      expect(new URL(start!, publicUrl).searchParams.get('return_to')).toBe(new URL(inviteUrl).pathname);
      expect(await pageWidth(bob.page)).toBeLessThanOrEqual(phone.width);
      await saveScreenshot(bob.page, 'invite-signed-out');
      await signInWithIdp(bob.page, 'bob');
      await bob.page.waitForURL(inviteUrl);
      const accept = bob.page.getByRole('button', { name: 'Accept the invite' });
      await accept.waitFor();
      expect(await bob.page.locator('main').textContent()).toContain('Signed in as Bob Babbage');
      await saveScreenshot(bob.page, 'invite-signed-in');
      await accept.click();
      await bob.page.waitForURL(`${publicUrl}/#/usage`);
      await expect.poll(() => bob.page.locator('header .muted').textContent()).toContain('Member');
      // A member manages its own keys and reads the members; no billing, alerts or audit log.
      const tabs = await bob.page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allTextContents();
      expect(tabs).toEqual(['Usage', 'Requests', 'Keys', 'Members', 'Models', 'Sessions']);
      // Its own key, never a management key (the owner's credential).
      await nav(bob.page, 'Keys');
      await bob.page.getByLabel('Key name').fill('bobs-key');
      expect(await bob.page.getByLabel('Management key').count()).toBe(0);
      await bob.page.getByRole('button', { name: 'Create key' }).click();
      await bob.page.getByTestId('new-key-secret').waitFor();
      await bob.page.getByRole('button', { name: 'I have saved it' }).click();
      await expect.poll(() => bob.page.getByRole('listitem', { name: 'Key bobs-key' }).count()).toBe(1);
      // The link worked once.
      await bob.page.goto(inviteUrl);
      await expect.poll(() => bob.page.getByRole('alert').textContent()).toContain('used already');
      expect(bob.problems.pageErrors).toEqual([]);
      expect(bob.problems.dialogs).toEqual([]);
    } finally {
      gateway.test.context.config.signup!.mode = 'open';
    }

    // Back at the owner's list: Bob is a member, the invite is no longer pending; make him an admin.
    await page.reload();
    const bobCard = memberCard(page, 'Bob Babbage');
    await expect.poll(() => bobCard.getByTestId('member-role').textContent()).toBe('Member');
    await expect.poll(() => page.getByText('No pending invites.').count()).toBe(1);
    await bobCard.getByRole('combobox', { name: 'Role' }).selectOption('admin');
    await bobCard.getByRole('button', { name: 'Change role' }).click();
    await expect.poll(() => bobCard.getByTestId('member-role').textContent()).toBe('Admin');
    // Bob's limit is read from the row and offered for a change; the last owner has no role form and no way out.
    expect(await bobCard.locator('.member-limit').textContent()).toBe('no limit');
    expect(await bobCard.getByRole('form', { name: 'Limit of Bob Babbage' }).getByLabel(/^Member limit/).count()).toBe(1);
    const adaCard = memberCard(page, 'Ada Lovelace');
    expect(await adaCard.getByRole('form', { name: 'Role of Ada Lovelace' }).count()).toBe(0);
    expect(await adaCard.getByRole('button', { name: 'Leave this account' }).count()).toBe(0);
    // Bob, now an admin, sees billing; auto top-up (the owner's card, off-session) only read-only.
    await bob.page.goto(`${publicUrl}/`);
    await nav(bob.page, 'Billing');
    const autoTopUp = bob.page.getByRole('form', { name: 'Auto top-up' });
    await expect.poll(() => autoTopUp.getByTestId('auto-top-up-state').textContent()).toContain('Off.');
    expect(await autoTopUp.getByTestId('auto-top-up-owner-only').count()).toBe(1);
    expect(await autoTopUp.getByRole('button', { name: 'Save auto top-up' }).count()).toBe(0);
    expect(await bob.page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allTextContents()).toEqual(expect.arrayContaining(['Alerts', 'Audit log']));
    await saveScreenshot(bob.page, 'admin-billing');
    const members = (await (await page.context().request.get(`${publicUrl}/v1/members`, { headers: { 'x-switchyard-account': await accountId(page) } })).json()) as Json;
    expect(members.data.map((member: Json) => [member.name, member.role])).toEqual(expect.arrayContaining([['Bob Babbage', 'admin'], ['Ada Lovelace', 'owner']]));

    // An invite for anyone with the link, revoked before use.
    await invite.getByLabel(/^Email/).fill('');
    await invite.getByLabel('Role').selectOption('viewer');
    await invite.getByRole('button', { name: 'Create invite link' }).click();
    await expect.poll(() => pendingInvites(page).count()).toBe(1);
    await saveScreenshot(page, 'members-list');
    await page.getByRole('button', { name: /^Revoke the invite for inv_/ }).click();
    await expect.poll(() => page.getByText('No pending invites.').count()).toBe(1);
    expect(await pageWidth(page)).toBeLessThanOrEqual(phone.width);
  });

  it("sets a key's daily limit and shows what today used of it, with when it resets", async () => {
    const { page } = owner;
    await nav(page, 'Keys');
    await page.getByLabel('Key name').fill('daily');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-key-secret').textContent())!.trim();
    await page.getByRole('button', { name: 'I have saved it' }).click();
    const client = new OpenAI({ apiKey: secret, baseURL: `${publicUrl}/v1`, maxRetries: 0 });
    await client.chat.completions.create({ model: 'sim/openai-model', messages: [{ role: 'user', content: 'spend a little today' }], max_tokens: 20 });
    // The charge is group-committed: wait until the key's own object counts it.
    let spent = 0;
    await expect
      .poll(async () => {
        const me = (await (await fetch(`${publicUrl}/v1/key`, { headers: { authorization: `Bearer ${secret}` } })).json()) as Json;
        spent = me.data.usage_daily;
        return spent;
      })
      .toBeGreaterThan(0);
    // A daily limit four times what today used: the bar stands at a quarter.
    const limit = Number((spent * 4).toFixed(9));
    await page.reload();
    const card = page.getByRole('listitem', { name: 'Key daily' });
    await card.getByRole('button', { name: 'Edit limits of daily' }).click();
    const form = page.getByRole('form', { name: 'Limits of daily' });
    await form.getByLabel('Spending limit (USD)').fill(String(limit));
    await form.getByLabel('Limit resets').selectOption('daily');
    await form.getByRole('button', { name: 'Save limits' }).click();
    await expect.poll(() => card.locator('.key-limit').textContent()).toBe(`${formatUsd(limit)} daily (${formatUsd(Number((limit - spent).toFixed(9)))} left)`);
    const bar = card.getByRole('progressbar', { name: 'Limit of daily' });
    expect(await bar.getAttribute('aria-valuenow')).toBe(String(Math.round((spent / limit) * 100)));
    const tomorrow = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1)).toISOString();
    expect(await card.getByTestId('limit-bar-text').textContent()).toBe(`${formatUsd(spent)} of ${formatUsd(limit)} used today (25%) · resets ${tomorrow.replace('T', ' ').replace('.000Z', 'Z')}`);
    const keys = (await (await page.context().request.get(`${publicUrl}/v1/keys`, { headers: { 'x-switchyard-account': await accountId(page) } })).json()) as Json;
    expect(keys.data.find((key: Json) => key.name === 'daily')).toMatchObject({ limit, limit_reset: 'daily' });
    expect(await pageWidth(page)).toBeLessThanOrEqual(phone.width);
    await saveScreenshot(page, 'keys-daily-limit');
  });

  it('saves alert settings with a webhook, keeps its secret masked, and sends a test alert the receiver verifies', async () => {
    const { page } = owner;
    await nav(page, 'Alerts');
    const form = page.getByRole('form', { name: 'Alert settings' });
    await form.getByLabel(/^Balance below/).fill('1');
    await form.getByLabel(/^Key limits at percents/).fill('50, 100');
    await form.getByLabel(/^Webhook URL/).fill(receiver.url);
    await form.getByLabel(/^Webhook secret/).fill(webhookSecret);
    await form.getByRole('button', { name: 'Save alerts' }).click();
    await expect.poll(() => form.getByLabel(/^Webhook secret/).evaluate((input) => (input as unknown as { labels: Array<{ textContent: string }> }).labels[0].textContent)).toContain(
      `stored: ****${webhookSecret.slice(-4)}, empty keeps it`,
    );
    const saved = (await (await page.context().request.get(`${publicUrl}/v1/alerts`, { headers: { 'x-switchyard-account': await accountId(page) } })).json()) as Json;
    expect(saved.data).toEqual({
      low_balance: { threshold: 1 },
      key_limit_percents: [50, 100],
      channels: { email: false, telegram: false, webhook: { url: receiver.url, secret: `****${webhookSecret.slice(-4)}` } },
    });
    // Saved again with the secret left empty: the stored one is kept (the test below verifies with it).
    await form.getByLabel(/^Key limits at percents/).fill('80, 100');
    await form.getByRole('button', { name: 'Save alerts' }).click();
    await expect.poll(async () => ((await (await page.context().request.get(`${publicUrl}/v1/alerts`, { headers: { 'x-switchyard-account': await accountId(page) } })).json()) as Json).data.key_limit_percents).toEqual([80, 100]);

    await form.getByRole('button', { name: 'Send a test alert' }).click();
    const result = page.getByTestId('test-alert-result');
    await expect.poll(() => result.textContent()).toMatch(/^Test alert alr_\S+ sent to: webhook\.$/);
    const alertId = /Test alert (\S+) sent/.exec((await result.textContent())!)![1];
    // Deliveries run from the durable task engine: run it until the receiver has the alert.
    await expect
      .poll(async () => {
        while ((await gateway.test.context.tasks.runOnce()) > 0);
        return receiver.accepted().filter((delivery) => delivery.alert.id === alertId).length;
      })
      .toBe(1);
    expect(receiver.accepted().find((delivery) => delivery.alert.id === alertId)!.alert).toMatchObject({ type: 'test', account_id: await accountId(page) });
    expect(await pageWidth(page)).toBeLessThanOrEqual(phone.width);
    await saveScreenshot(page, 'alerts');
  });

  it('shows the audit log, filtered by action family and by actor type', async () => {
    const { page, problems } = owner;
    await nav(page, 'Audit log');
    const table = page.getByRole('table', { name: 'Audit log of the account' });
    const actions = () => table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => (row as unknown as { dataset: { action: string } }).dataset.action));
    await expect.poll(actions).toEqual(expect.arrayContaining(['alerts.update', 'key.limit', 'key.create', 'member.role', 'member.join', 'member.invite', 'session.sign_in']));
    await page.getByRole('combobox', { name: 'Action' }).selectOption('member');
    await expect.poll(actions).toEqual(['member.invite_revoke', 'member.invite', 'member.role', 'member.join', 'member.invite']);
    await page.getByRole('combobox', { name: 'Actor' }).selectOption('user');
    await expect.poll(actions).toEqual(['member.invite_revoke', 'member.invite', 'member.role', 'member.join', 'member.invite']);
    await page.getByRole('combobox', { name: 'Action' }).selectOption('');
    await page.getByRole('combobox', { name: 'Actor' }).selectOption('key');
    // The key made a request, which changes nothing: no entry by a key.
    await expect.poll(() => page.getByText('No entries by a key.').count()).toBe(1);
    await page.getByRole('combobox', { name: 'Actor' }).selectOption('user');
    await page.getByRole('combobox', { name: 'Action' }).selectOption('key');
    // Ada's daily key (made, then limited) after Bob's own key.
    await expect.poll(actions).toEqual(['key.limit', 'key.create', 'key.create']);
    expect(await pageWidth(page)).toBeLessThanOrEqual(phone.width);
    await saveScreenshot(page, 'audit-log');
    expect(problems.pageErrors).toEqual([]);
    expect(problems.dialogs).toEqual([]);
    expect(problems.consoleErrors).toEqual([]);
  });
});

/** The account the page acts for (its switcher's choice, else the person's only account). */
async function accountId(page: Page): Promise<string> {
  const session = (await (await page.context().request.get(`${new URL(page.url()).origin}/auth/session`)).json()) as Json;
  const owned = session.data.accounts.find((account: Json) => account.role === 'owner');
  return owned.id;
}
