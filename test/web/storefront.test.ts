import { createHash, createHmac } from 'node:crypto';
import OpenAI from 'openai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUsd } from '../../web/src/format.js';
import { insertMembership } from '../../src/store/repositories/memberships.js';
import { freePort } from '../helpers/own-services.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/start-oidc-provider.js';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe/fake-stripe.js';
import { startFakeTelegramBotApi, type FakeTelegramBotApi } from '../helpers/fake-telegram-bot-api.js';
import { simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { browserAvailable, buildPage, launchChromium, saveScreenshot } from './browser.js';
import { nav, openPhonePage, pageWidth, phone, signOut as signOutOf } from './phone-page.js';

// Node 20's fetch types answer `unknown`; these tests read the shapes they assert.
type Json = any;

const botToken = '424242:storefront-test-bot-token';
const botUsername = 'switchyard_store_bot';
const bonus = 2;

/** What Telegram's Login Widget hands back: its fields, signed with the bot token (core.telegram.org/widgets/login#checking-authorization). */
function telegramWidgetFields(user: { id: number; first_name: string; username: string }, authDate = Math.floor(Date.now() / 1000)): Record<string, string | number> {
  const fields: Record<string, string | number> = { id: user.id, first_name: user.first_name, username: user.username, auth_date: authDate };
  const checkString = Object.keys(fields)
    .sort()
    .map((name) => `${name}=${fields[name]}`)
    .join('\n');
  const secret = createHash('sha256').update(botToken).digest();
  return { ...fields, hash: createHmac('sha256', secret).update(checkString).digest('hex') };
}

/** A real SMTP server (smtp-server) on loopback that keeps every message it is handed. */
async function startMailbox(): Promise<{ url: string; messages: string[]; next(count: number): Promise<string>; close(): Promise<void> }> {
  const messages: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        messages.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async next(count) {
      await expect.poll(() => messages.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
      return messages[count - 1];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The sign-in link in a mail, quoted-printable soft breaks and `=3D` undone. */
function signInLink(message: string, origin: string): string {
  const text = message.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const match = new RegExp(`${origin.replace(/[.]/g, '\\.')}/auth/email/callback\\?token=[A-Za-z0-9_-]+`).exec(text);
  if (!match) throw new Error(`no sign-in link in the mail:\n${text}`);
  return match[0];
}

describe.runIf(browserAvailable())('the storefront in Chromium', { timeout: 180_000 }, () => {
  let publicUrl: string;
  let gateway: SimulatedGateway;
  let oidc: TestOidcProvider;
  let mailbox: Awaited<ReturnType<typeof startMailbox>>;
  let stripe: FakeStripe;
  let bot: FakeTelegramBotApi;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  const openStore = (telegram: 'offline' | 'stand-in' = 'offline') => openPhonePage(browser, `${publicUrl}/`, contexts, telegram);
  const balanceOf = (page: Page) => page.getByLabel('Balance figures').locator('.stat').first().locator('dd');
  const transactionKinds = (page: Page) =>
    page
      .getByRole('table', { name: 'Transactions' })
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => (row as unknown as { dataset: { kind: string } }).dataset.kind));
  const signOut = (page: Page) => signOutOf(page, publicUrl);

  beforeAll(async () => {
    buildPage();
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    oidc = await startOidcProvider({
      clients: [{ client_id: 'switchyard-page', client_secret: 'oidc-test-secret', redirect_uris: [`${publicUrl}/auth/oidc/test-idp/callback`] }],
      accounts: [{ sub: 'ada', email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace' }],
    });
    mailbox = await startMailbox();
    stripe = await startFakeStripe();
    bot = await startFakeTelegramBotApi();
    const storefront = `signup: {mode: open, bonus_credits: ${bonus}, allowed_email_domains: []}
payments:
  stripe: {secret_key: ${stripe.secretKey}, webhook_secret: ${stripe.webhookSecret}, api_base: "${stripe.url}"}
`;
    gateway = await startSimulatedGateway({
      port,
      catalogYaml: (simulatorUrl) => `${simulatedCatalogYaml(simulatorUrl)}${storefront}`,
      configure: (config) => {
        config.server.publicUrl = publicUrl;
        config.server.telegram = { botToken, webhookSecret: 'storefront-webhook-secret', apiBaseUrl: bot.url, botUsername };
        // Set here rather than in the YAML, whose check wants SWITCHYARD_PUBLIC_URL and TELEGRAM_BOT_TOKEN from the environment.
        config.auth = {
          oidc: [{ id: 'test-idp', name: 'Test IdP', issuer: oidc.issuer, client_id: 'switchyard-page', client_secret: 'oidc-test-secret' }],
          telegram: { login: true },
          email: { smtpUrl: mailbox.url, from: 'Switchyard <sign-in@switchyard.test>' },
        };
      },
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await gateway?.close();
    await stripe?.close();
    await mailbox?.close();
    await oidc?.close();
    await bot?.close();
  });

  it('signs up with OpenID Connect (bonus once), tops up 10 USD through Checkout, shows the receipt, makes a key that calls the API, and signs out', async () => {
    const { page, problems } = await openStore();
    await page.getByRole('heading', { name: 'Sign in or sign up' }).waitFor();
    // telegram.org is out of reach: the Telegram choice says so and waits, the others work.
    await expect.poll(() => page.locator('.telegram-login').textContent()).toContain('could not be loaded');
    expect(await page.getByRole('button', { name: 'Continue with Telegram' }).isDisabled()).toBe(true);
    // With Telegram sign-in on, the page's CSP admits the widget's script and its call home, and nothing more.
    const policy = (await page.context().request.get(`${publicUrl}/`)).headers()['content-security-policy'];
    expect(policy).toContain("script-src 'self' https://telegram.org;");
    expect(policy).toContain("connect-src 'self' https://oauth.telegram.org;");
    expect(policy).not.toContain('unsafe');
    await saveScreenshot(page, 'store-sign-in');

    // The provider's own login form, in the same browser: the page only sends it there.
    await page.getByRole('link', { name: 'Continue with Test IdP' }).click();
    await page.waitForURL(`${oidc.issuer}/**`);
    await page.getByLabel('Account').fill('ada');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Billing' }).waitFor();
    expect(page.url()).toBe(`${publicUrl}/#/billing`);
    expect(await page.locator('header .muted').textContent()).toContain('Ada Lovelace');
    await expect.poll(() => balanceOf(page).textContent()).toBe(formatUsd(bonus));
    await expect.poll(() => transactionKinds(page)).toEqual(['signup_bonus']);

    // A second sign-in of the same identity is no second sign-up: no second bonus.
    await signOut(page);
    oidc.setAutoLogin({ login: 'ada' });
    await page.getByRole('link', { name: 'Continue with Test IdP' }).click();
    await page.getByRole('heading', { name: 'Billing' }).waitFor();
    await expect.poll(() => transactionKinds(page)).toEqual(['signup_bonus']);
    expect(await balanceOf(page).textContent()).toBe(formatUsd(bonus));
    await saveScreenshot(page, 'store-billing');

    // Top up 10 USD: the page goes to Checkout's hosted page, which comes back after paying.
    await page.getByRole('button', { name: `Top up ${formatUsd(10)}` }).click();
    await page.waitForURL(`${stripe.url}/pay/**`);
    expect(await page.getByTestId('total').textContent()).toBe('$10.00');
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(`${publicUrl}/#/billing`);
    const result = page.getByTestId('top-up-result');
    // Back before Stripe's webhook: the page waits for it rather than trusting the redirect.
    await expect.poll(() => result.textContent()).toContain('Waiting for Stripe to confirm');
    const session = [...stripe.sessions.values()].at(-1)!;
    const delivered = await stripe.deliver(`${publicUrl}/webhooks/stripe`, stripe.lastEvent('checkout.session.completed', session.id));
    expect(delivered.status).toBe(200);
    await expect.poll(() => result.textContent(), { timeout: 10_000 }).toBe(`Payment received: ${formatUsd(10)} credited. Your balance is ${formatUsd(bonus + 10)}.`);
    await expect.poll(() => balanceOf(page).textContent()).toBe(formatUsd(bonus + 10));
    await expect.poll(() => transactionKinds(page)).toEqual(['top_up', 'signup_bonus']);
    // The same event again (Stripe retries) credits nothing more.
    expect((await stripe.deliver(`${publicUrl}/webhooks/stripe`, stripe.lastEvent('checkout.session.completed', session.id))).status).toBe(200);
    const receipt = page.getByRole('link', { name: `Receipt for Top-up of ${formatUsd(10)}` });
    const charge = [...stripe.charges.values()].at(-1)!;
    expect(await receipt.getAttribute('href')).toBe(charge.receipt_url);
    expect(await pageWidth(page)).toBeLessThanOrEqual(phone.width);
    await saveScreenshot(page, 'store-paid');

    // The card Checkout saved makes auto top-up possible: below $5, add $10.
    const autoTopUp = page.getByRole('form', { name: 'Auto top-up' });
    await expect.poll(() => autoTopUp.getByTestId('auto-top-up-state').textContent()).toBe('Off.');
    await autoTopUp.getByLabel('Top up automatically with the card saved at checkout').check();
    await autoTopUp.getByLabel('When the balance falls below (USD)').fill('5');
    await autoTopUp.getByLabel(/^Add \(USD/).fill('10');
    await autoTopUp.getByRole('button', { name: 'Save auto top-up' }).click();
    await expect.poll(() => autoTopUp.getByTestId('auto-top-up-state').textContent()).toBe(`On: below ${formatUsd(5)}, add ${formatUsd(10)}.`);

    // A code from the operator, redeemed on the page.
    const batch = (await (
      await fetch(`${publicUrl}/admin/redemption-codes`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.test.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 3, count: 1, note: 'storefront test' }),
      })
    ).json()) as Json;
    const redeem = page.getByRole('form', { name: 'Redeem a code' });
    await redeem.getByLabel('Redemption code').fill(batch.data.codes[0]);
    await redeem.getByRole('button', { name: 'Redeem' }).click();
    await expect.poll(() => redeem.getByRole('status').textContent()).toBe(`Redeemed ${formatUsd(3)}. Your balance is ${formatUsd(bonus + 13)}.`);
    await expect.poll(() => transactionKinds(page)).toEqual(['redemption', 'top_up', 'signup_bonus']);
    await expect.poll(() => balanceOf(page).textContent()).toBe(formatUsd(bonus + 13));

    // Another amount, within the bounds only; and a Checkout left with Cancel charges nothing.
    const another = page.getByLabel(/^Another amount/);
    await another.fill('2');
    expect(await page.getByRole('button', { name: 'Pay with card' }).isDisabled()).toBe(true);
    await another.fill('12.50');
    await page.getByRole('button', { name: 'Pay with card' }).click();
    await page.waitForURL(`${stripe.url}/pay/**`);
    expect(await page.getByTestId('total').textContent()).toBe('$12.50');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.waitForURL(`${publicUrl}/#/billing`);
    await expect.poll(() => page.getByTestId('top-up-result').textContent()).toBe('Payment cancelled: nothing was charged.');
    await expect.poll(() => balanceOf(page).textContent()).toBe(formatUsd(bonus + 13));

    // A key made on the page calls the API (the official SDK, the same gateway, a simulated provider).
    await nav(page, 'Keys');
    await page.getByLabel('Key name').fill('shop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-key-secret').textContent())!.trim();
    expect(secret).toMatch(/^sy_[A-Za-z0-9_-]{40,}$/);
    await page.getByRole('button', { name: 'I have saved it' }).click();
    const client = new OpenAI({ apiKey: secret, baseURL: `${publicUrl}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'sim/openai-model', messages: [{ role: 'user', content: 'bought with credits' }], max_tokens: 20 });
    expect(completion.choices[0].message.content).toBeTruthy();
    await nav(page, 'Billing');
    const after = (await (await fetch(`${publicUrl}/v1/credits`, { headers: { authorization: `Bearer ${secret}` } })).json()) as Json;
    expect(after.data.balance).toBeLessThan(bonus + 13);
    await expect.poll(() => balanceOf(page).textContent()).toBe(formatUsd(after.data.balance));

    await signOut(page);
    expect(problems.dialogs).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    expect(problems.consoleErrors).toEqual([]);
  });

  it('signs in with Telegram (the widget’s signed fields), links the messenger, and says so when sign-up is closed', async () => {
    const { page, problems } = await openStore('stand-in');
    const continueWithTelegram = page.getByRole('button', { name: 'Continue with Telegram' });
    await expect.poll(() => continueWithTelegram.isEnabled()).toBe(true);
    const signInAs = async (fields: Record<string, string | number>) => {
      await page.evaluate((answer) => ((globalThis as any).__telegramAnswer = answer), fields);
      await continueWithTelegram.click();
    };
    await signInAs(telegramWidgetFields({ id: 70_001, first_name: 'Grace', username: 'grace_h' }));
    await page.getByRole('heading', { name: 'Billing' }).waitFor();
    // The page asked Telegram for this bot, by its public id.
    expect(await page.evaluate(() => (globalThis as any).__telegramOptions)).toEqual({ bot_id: Number(botToken.split(':')[0]), request_access: 'write' });
    expect(await page.locator('header .muted').textContent()).toContain('Grace');
    await expect.poll(() => balanceOf(page).textContent()).toBe(formatUsd(bonus));
    await nav(page, 'Messenger');
    await expect.poll(() => page.locator('.link-status').textContent()).toMatch(/^Linked \(telegram\) since /);
    await saveScreenshot(page, 'store-telegram');
    await signOut(page);

    // Fields in a URL (the widget's redirect form, or a link someone else made with their own
    // login) sign nobody in: the page takes Telegram's answer only from its own call.
    await page.goto(`${publicUrl}/?${new URLSearchParams(Object.entries(telegramWidgetFields({ id: 70_001, first_name: 'Grace', username: 'grace_h' })).map(([name, value]): [string, string] => [name, String(value)]))}`);
    await page.getByLabel('API key or admin token').waitFor();
    expect((await page.context().request.get(`${publicUrl}/auth/session`)).status()).toBe(401);

    // A forged hash is refused, with the server's reason.
    await expect.poll(() => continueWithTelegram.isEnabled()).toBe(true);
    await signInAs({ ...telegramWidgetFields({ id: 70_001, first_name: 'Grace', username: 'grace_h' }), first_name: 'Mallory' });
    await expect.poll(() => page.getByTestId('sign-in-refused').textContent()).toContain('does not carry a valid signature');

    // Sign-up closed by the operator: a new Telegram identity is turned away, and told why.
    gateway.test.context.config.signup!.mode = 'closed';
    try {
      await signInAs(telegramWidgetFields({ id: 70_002, first_name: 'Stranger', username: 'stranger' }));
      await expect.poll(() => page.getByTestId('sign-in-refused').textContent()).toContain('Sign-up is closed');
      await saveScreenshot(page, 'store-signup-closed');
      // Grace has an account already: closed sign-up still lets her in.
      await signInAs(telegramWidgetFields({ id: 70_001, first_name: 'Grace', username: 'grace_h' }));
      await page.getByRole('heading', { name: 'Billing' }).waitFor();
    } finally {
      gateway.test.context.config.signup!.mode = 'open';
    }
    expect(problems.dialogs).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
  });

  it('signs in with a magic link read from the mail, lists the sessions, and signs out everywhere', async () => {
    const other = await openStore();
    const { page, problems } = await openStore();
    const sent = mailbox.messages.length;
    await page.getByLabel('Email address').fill('lin@example.org');
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await expect.poll(() => page.getByRole('status', { name: 'Check your mail' }).textContent()).toContain('lin@example.org');
    await saveScreenshot(page, 'store-check-mail');
    const link = signInLink(await mailbox.next(sent + 1), publicUrl);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Billing' }).waitFor();
    expect(await page.locator('header .muted').textContent()).toContain('lin@example.org');

    // Lin is also a viewer of one account and a member of another (memberships as §8's invites
    // make them, written here through the store's own repository): the switcher offers all three.
    const team = await gateway.test.createAccount({ name: 'Team', credits: 1 });
    const me = (await (await page.context().request.get(`${publicUrl}/auth/session`)).json()) as Json;
    const now = new Date().toISOString();
    await insertMembership(gateway.test.context.store.db, { userId: me.data.user.id, accountId: gateway.accountId, role: 'viewer', createdAt: now });
    await insertMembership(gateway.test.context.store.db, { userId: me.data.user.id, accountId: team.accountId, role: 'member', createdAt: now });
    await page.reload();
    const switcher = page.getByLabel('Account', { exact: true });
    await switcher.waitFor();
    expect(await switcher.locator('option').allTextContents()).toEqual(expect.arrayContaining(['lin (Owner)', 'Team (Member)']));
    expect(await switcher.locator('option').count()).toBe(3);
    const tabs = () => page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allTextContents();
    await switcher.selectOption(gateway.accountId);
    // A viewer reads usage, requests and the members; no billing, no keys.
    await expect.poll(tabs).toEqual(['Usage', 'Requests', 'Members', 'Models', 'Sessions']);
    expect(await page.locator('header .muted').textContent()).toContain('Viewer');
    await page.getByLabel('Usage totals').waitFor();
    await switcher.selectOption(team.accountId);
    // A member reads usage and requests too, and manages the keys it makes (§8); no billing.
    await expect.poll(tabs).toEqual(['Usage', 'Requests', 'Keys', 'Members', 'Models', 'Sessions']);
    expect(await page.locator('header .muted').textContent()).toContain('Team · Member');
    await nav(page, 'Requests');
    await page.getByRole('table', { name: 'Request log' }).or(page.locator('.status.empty')).first().waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await pageWidth(page)).toBeLessThanOrEqual(phone.width);
    await saveScreenshot(page, 'store-switcher-member');
    // The choice holds across a reload of this tab.
    await page.reload();
    await expect.poll(() => switcher.inputValue()).toBe(team.accountId);
    await switcher.selectOption(me.data.accounts[0].id);
    await expect.poll(tabs).toContain('Billing');

    // A second browser signed in as the same person: listed, and ended from here.
    const secondSent = mailbox.messages.length;
    await other.page.getByLabel('Email address').fill('lin@example.org');
    await other.page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await other.page.goto(signInLink(await mailbox.next(secondSent + 1), publicUrl));
    await other.page.getByRole('heading', { name: 'Billing' }).waitFor();
    await nav(page, 'Sessions');
    const sessions = page.getByRole('list', { name: 'Sessions' }).getByRole('listitem');
    await expect.poll(() => sessions.count()).toBe(2);
    expect(await page.getByRole('listitem', { name: 'This session' }).count()).toBe(1);
    await saveScreenshot(page, 'store-sessions');
    await page.getByRole('button', { name: 'End this session' }).click();
    await expect.poll(() => sessions.count()).toBe(1);
    expect((await other.page.context().request.get(`${publicUrl}/auth/session`)).status()).toBe(401);

    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByLabel('API key or admin token').waitFor();
    expect((await page.context().request.get(`${publicUrl}/auth/session`)).status()).toBe(401);
    // The link works once.
    await page.goto(link);
    expect(await page.locator('h1').textContent()).toBe('This sign-in link does not work');
    expect(problems.dialogs).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
  });

  it('shows the operator the users, the sign-up settings, and an account’s payments', async () => {
    const { page, problems } = await openStore();
    await page.getByLabel('API key or admin token').fill(gateway.test.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Switchyard operator console' }).waitFor();
    await nav(page, 'Users');
    const settings = page.getByLabel('Sign-up settings');
    await expect.poll(() => settings.textContent()).toContain('Sign-upopen');
    expect(await settings.textContent()).toContain(`Bonus${formatUsd(bonus)} once per identity`);
    expect(await settings.textContent()).toContain('OpenID Connect: Test IdP');
    const listed = (await (await fetch(`${publicUrl}/admin/users`, { headers: { authorization: `Bearer ${gateway.test.adminToken}` } })).json()) as Json;
    const rows = page.getByRole('table', { name: 'Users' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(listed.data.length);
    expect(listed.data.length).toBeGreaterThanOrEqual(3);
    await page.getByLabel('Find a user by email').fill('ADA@example.com');
    await page.getByRole('button', { name: 'Find' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.locator('th').textContent()).toBe('Ada Lovelace');
    expect(await pageWidth(page)).toBeLessThanOrEqual(phone.width);
    await saveScreenshot(page, 'store-operator-users');
    // Ada's account, from her row: her top-up and bonus, with the receipt.
    await rows.getByRole('link').first().click();
    const payments = page.getByRole('table', { name: 'Transactions of the account' });
    await expect.poll(() => payments.locator('tbody tr').evaluateAll((found) => found.map((row) => (row as unknown as { dataset: { kind: string } }).dataset.kind))).toEqual(['redemption', 'top_up', 'signup_bonus']);
    expect(await payments.getByRole('link', { name: `Receipt for Top-up of ${formatUsd(10)}` }).count()).toBe(1);
    await saveScreenshot(page, 'store-operator-payments');
    expect(problems.pageErrors).toEqual([]);
    expect(problems.consoleErrors).toEqual([]);
  });
});
