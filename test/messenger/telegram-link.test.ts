import { runAdminCommand } from '../helpers/run-admin-command.js';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/types.js';
import { startFakeTelegramBotApi, type BotApiCall, type FakeTelegramBotApi } from '../helpers/fake-telegram-bot-api.js';
import { startTestApp, type TestApp } from '../helpers/start-test-app.js';
import { buildTestConfig } from '../helpers/test-config.js';
import { testDatabases } from '../helpers/test-databases.js';

const botToken = '123456789:AAtest-bot-token_never-logged';
const webhookSecret = 'webhook-secret_0123456789';
const botUsername = 'switchyard_test_bot';
const minute = 60_000;

interface Harness {
  test: TestApp;
  bot: FakeTelegramBotApi;
  base: string;
  logLines: string[];
  advanceClock(ms: number): void;
  now(): Date;
  admin(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>;
  createAccount(name?: string): Promise<string>;
  issueCode(accountId: string): Promise<{ code: string; expires_at: string; deep_link: string | null }>;
  isLinked(accountId: string): Promise<boolean>;
  postUpdate(update: unknown, secret?: string | null): Promise<{ status: number; body: any }>;
  /** Sends a private text message from `chatId` and waits for the bot's reply to arrive at the fake Bot API. */
  say(chatId: number, text: string): Promise<BotApiCall>;
  close(): Promise<void>;
}

let nextUpdateId = 1000;

function textUpdate(chatId: number, text: string): Record<string, unknown> {
  const from = { id: chatId, is_bot: false, first_name: 'Ada', language_code: 'en' };
  return { update_id: nextUpdateId++, message: { message_id: nextUpdateId, date: 1_795_000_000, chat: { id: chatId, type: 'private', first_name: 'Ada' }, from, text } };
}

/** The real app listening on a port, with the fake Bot API as Telegram and a clock the test moves. */
async function startHarness(databaseUrl: string, configure?: (config: Config) => void): Promise<Harness> {
  const bot = await startFakeTelegramBotApi();
  let current = Date.now();
  const clock = { now: () => new Date(current) };
  const logLines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
  const config = buildTestConfig({ databaseUrl });
  config.server.telegram = { botToken, webhookSecret, apiBaseUrl: bot.url, botUsername };
  configure?.(config);
  const test = await startTestApp({ databaseUrl, config, clock, logger });
  await test.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;

  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  const harness: Harness = {
    test,
    bot,
    base,
    logLines,
    advanceClock: (ms) => void (current += ms),
    now: () => new Date(current),
    admin: (method, path, body, token = test.adminToken) => call(method, path, { authorization: `Bearer ${token}` }, body),
    async createAccount(name = 'telegram-user') {
      const created = await harness.admin('POST', '/admin/accounts', { name });
      expect(created.status).toBe(201);
      return created.body.data.id as string;
    },
    async issueCode(accountId) {
      const issued = await harness.admin('POST', `/admin/accounts/${accountId}/messenger/link-code`);
      expect(issued.status).toBe(201);
      return issued.body.data;
    },
    async isLinked(accountId) {
      const shown = await harness.admin('GET', `/admin/accounts/${accountId}`);
      expect(shown.status).toBe(200);
      return shown.body.data.messenger_linked as boolean;
    },
    postUpdate: (update, secret = webhookSecret) =>
      call('POST', '/webhooks/telegram', secret === null ? {} : { 'x-telegram-bot-api-secret-token': secret }, update),
    async say(chatId, text) {
      const before = bot.calls.length;
      const answered = await harness.postUpdate(textUpdate(chatId, text));
      expect(answered).toEqual({ status: 200, body: { ok: true } });
      const calls = await bot.waitForCalls(before + 1);
      return calls[before];
    },
    async close() {
      await test.close();
      await bot.close();
    },
  };
  return harness;
}

function expectReply(call: BotApiCall, chatId: number, text: RegExp): void {
  expect(call.token).toBe(botToken);
  expect(call.method).toBe('sendMessage');
  expect(call.body.chat_id).toBe(chatId);
  expect(call.body.text).toMatch(text);
}

const linkedText = /now linked/;
const invalidText = /not valid or has already been used/;

for (const database of testDatabases()) {
  describe(`Telegram messenger linking on ${database.name}`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness(database.url);
    });
    afterAll(async () => h?.close());

    it('links an account through an admin-issued code redeemed with /start, and the bot confirms in that chat', async () => {
      const accountId = await h.createAccount('ada');
      expect(await h.isLinked(accountId)).toBe(false);

      const issued = await h.issueCode(accountId);
      expect(issued.code).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(issued.expires_at).toBe(new Date(h.now().getTime() + 15 * minute).toISOString());
      expect(issued.deep_link).toBe(`https://t.me/${botUsername}?start=${issued.code}`);
      // Only the SHA-256 is stored.
      const rows = await h.test.context.store.db.selectFrom('link_codes').selectAll().where('account_id', '=', accountId).execute();
      expect(rows).toHaveLength(1);
      expect(rows[0].code_hash).toBe(createHash('sha256').update(issued.code).digest('hex'));
      expect(JSON.stringify(rows)).not.toContain(issued.code);

      const chatId = 700_000_000_001;
      expectReply(await h.say(chatId, `/start ${issued.code}`), chatId, linkedText);
      expect(await h.isLinked(accountId)).toBe(true);
      const link = await h.test.context.store.db.selectFrom('messenger_links').selectAll().where('account_id', '=', accountId).executeTakeFirstOrThrow();
      expect(link).toMatchObject({ messenger: 'telegram', external_id: String(chatId) });
      expectReply(await h.say(chatId, '/status'), chatId, /linked to the Switchyard account "ada"/);
    });

    it('consumes a code once: a reused code, or one replaced by a newer code, links nothing', async () => {
      const accountId = await h.createAccount();
      const first = await h.issueCode(accountId);
      const second = await h.issueCode(accountId);
      expect(second.code).not.toBe(first.code);

      expectReply(await h.say(700_000_000_002, `/start ${first.code}`), 700_000_000_002, invalidText);
      expect(await h.isLinked(accountId)).toBe(false);

      expectReply(await h.say(700_000_000_002, `/start ${second.code}`), 700_000_000_002, linkedText);
      expectReply(await h.say(700_000_000_003, `/start ${second.code}`), 700_000_000_003, invalidText);
      expectReply(await h.say(700_000_000_003, '/status'), 700_000_000_003, /not linked/);
      expectReply(await h.say(700_000_000_003, '/start not-a-code!'), 700_000_000_003, invalidText);
    });

    it('lets exactly one of two simultaneous redemptions of one code win', async () => {
      const accountId = await h.createAccount();
      const { code } = await h.issueCode(accountId);
      const before = h.bot.calls.length;
      const answers = await Promise.all([h.postUpdate(textUpdate(700_000_000_010, `/start ${code}`)), h.postUpdate(textUpdate(700_000_000_011, `/start ${code}`))]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      const replies = (await h.bot.waitForCalls(before + 2)).slice(before, before + 2).map((call) => String(call.body.text));
      expect(replies.filter((text) => linkedText.test(text))).toHaveLength(1);
      expect(replies.filter((text) => invalidText.test(text))).toHaveLength(1);
      expect(await h.isLinked(accountId)).toBe(true);
    });

    it('refuses an expired code with a friendly reply, and accepts one redeemed just in time', async () => {
      const late = await h.createAccount();
      const { code: lateCode } = await h.issueCode(late);
      const inTime = await h.createAccount();
      const { code: inTimeCode } = await h.issueCode(inTime);

      h.advanceClock(15 * minute - 1_000);
      expectReply(await h.say(700_000_000_020, `/start ${inTimeCode}`), 700_000_000_020, linkedText);
      expect(await h.isLinked(inTime)).toBe(true);

      h.advanceClock(1_000);
      expectReply(await h.say(700_000_000_021, `/start ${lateCode}`), 700_000_000_021, /expired/);
      expect(await h.isLinked(late)).toBe(false);
      // Expired means gone: retrying the same code is just unknown; a fresh code works.
      expectReply(await h.say(700_000_000_021, `/start ${lateCode}`), 700_000_000_021, invalidText);
      const { code: fresh } = await h.issueCode(late);
      expectReply(await h.say(700_000_000_021, `/start ${fresh}`), 700_000_000_021, linkedText);
      expect(await h.isLinked(late)).toBe(true);
    });

    it('unlinks with /unlink from the linked chat only', async () => {
      const accountId = await h.createAccount();
      const { code } = await h.issueCode(accountId);
      const chatId = 700_000_000_030;
      expectReply(await h.say(chatId, `/start ${code}`), chatId, linkedText);

      expectReply(await h.say(700_000_000_031, '/unlink'), 700_000_000_031, /not linked/);
      expect(await h.isLinked(accountId)).toBe(true);

      expectReply(await h.say(chatId, '/unlink'), chatId, /no longer linked/);
      expect(await h.isLinked(accountId)).toBe(false);
      expectReply(await h.say(chatId, '/status'), chatId, /not linked/);
      expectReply(await h.say(chatId, '/unlink'), chatId, /not linked/);
    });

    it('keeps one chat to one account: a second account\'s code is refused until /unlink, and stays valid meanwhile', async () => {
      const first = await h.createAccount('first');
      const second = await h.createAccount('second');
      const chatId = 700_000_000_040;
      expectReply(await h.say(chatId, `/start ${(await h.issueCode(first)).code}`), chatId, linkedText);
      const { code } = await h.issueCode(second);
      expectReply(await h.say(chatId, `/start ${code}`), chatId, /already linked to another/);
      expect(await h.isLinked(second)).toBe(false);

      expectReply(await h.say(chatId, '/unlink'), chatId, /no longer linked/);
      expectReply(await h.say(chatId, `/start ${code}`), chatId, linkedText);
      expect(await h.isLinked(second)).toBe(true);
      expect(await h.isLinked(first)).toBe(false);
      expectReply(await h.say(chatId, '/status'), chatId, /"second"/);
    });

    it('answers /start without a code, and any other text, with instructions', async () => {
      expectReply(await h.say(700_000_000_050, '/start'), 700_000_000_050, /link code/);
      expectReply(await h.say(700_000_000_050, 'hello?'), 700_000_000_050, /\/start CODE/);
      expectReply(await h.say(700_000_000_050, '/help'), 700_000_000_050, /\/unlink/);
    });

    it('unlinks through the admin API: DELETE, and PUT {linked:false} as before', async () => {
      const accountId = await h.createAccount();
      const chatId = 700_000_000_060;
      expectReply(await h.say(chatId, `/start ${(await h.issueCode(accountId)).code}`), chatId, linkedText);
      expect(await h.admin('DELETE', `/admin/accounts/${accountId}/messenger`)).toEqual({ status: 200, body: { data: { linked: false } } });
      expect(await h.isLinked(accountId)).toBe(false);
      expectReply(await h.say(chatId, '/status'), chatId, /not linked/);

      expectReply(await h.say(chatId, `/start ${(await h.issueCode(accountId)).code}`), chatId, linkedText);
      expect(await h.admin('PUT', `/admin/accounts/${accountId}/messenger`, { linked: false })).toEqual({ status: 200, body: { data: { linked: false } } });
      expect(await h.isLinked(accountId)).toBe(false);
      // The operator override still links without any chat; on a chat-linked account it keeps the chat.
      expect((await h.admin('PUT', `/admin/accounts/${accountId}/messenger`, { linked: true })).status).toBe(200);
      expect(await h.isLinked(accountId)).toBe(true);
      expectReply(await h.say(chatId, '/status'), chatId, /not linked/);
      await h.admin('PUT', `/admin/accounts/${accountId}/messenger`, { linked: false });
      expectReply(await h.say(chatId, `/start ${(await h.issueCode(accountId)).code}`), chatId, linkedText);
      expect((await h.admin('PUT', `/admin/accounts/${accountId}/messenger`, { linked: true })).status).toBe(200);
      expectReply(await h.say(chatId, '/status'), chatId, /is linked/);
    });

    it('guards the admin endpoints: unknown account 404, no admin token 401, also under /v1/admin', async () => {
      expect((await h.admin('POST', '/admin/accounts/acc_missing/messenger/link-code')).body.error.code).toBe('not_found');
      expect((await h.admin('DELETE', '/admin/accounts/acc_missing/messenger')).status).toBe(404);
      const accountId = await h.createAccount();
      expect((await h.admin('POST', `/admin/accounts/${accountId}/messenger/link-code`, undefined, 'wrong')).status).toBe(401);
      const issued = await h.admin('POST', `/v1/admin/accounts/${accountId}/messenger/link-code`);
      expect(issued.status).toBe(201);
      expect(issued.body.data.deep_link).toContain(issued.body.data.code);
    });

    it('refuses a wrong or missing secret header with 401, without touching the code', async () => {
      const accountId = await h.createAccount();
      const { code } = await h.issueCode(accountId);
      const chatId = 700_000_000_070;
      for (const secret of ['wrong-secret', `${webhookSecret}x`, '', null]) {
        const refused = await h.postUpdate(textUpdate(chatId, `/start ${code}`), secret);
        expect(refused.status).toBe(401);
        expect(refused.body.error.code).toBe('invalid_api_key');
      }
      expect(await h.isLinked(accountId)).toBe(false);
      expectReply(await h.say(chatId, `/start ${code}`), chatId, linkedText);
    });

    it('ignores updates that are not private text messages with 200 and no reply', async () => {
      const accountId = await h.createAccount();
      const { code } = await h.issueCode(accountId);
      const chat = { id: 700_000_000_080, type: 'private' };
      const ignored: unknown[] = [
        { update_id: 1, edited_message: { message_id: 1, date: 0, chat, text: `/start ${code}` } },
        { update_id: 2, message: { message_id: 2, date: 0, chat: { id: -100_123, type: 'group', title: 'g' }, text: `/start ${code}` } },
        { update_id: 3, message: { message_id: 3, date: 0, chat, photo: [{ file_id: 'x', width: 1, height: 1 }] } },
        { update_id: 4, message: { message_id: 4, date: 0, chat, sticker: { file_id: 'y' }, caption: `/start ${code}` } },
        { update_id: 5, channel_post: { message_id: 5, date: 0, chat: { id: -100_456, type: 'channel' }, text: `/start ${code}` } },
        { update_id: 6, callback_query: { id: 'cb', from: { id: 1 }, data: `/start ${code}` } },
        { update_id: 7, message: { message_id: 7, chat: { id: '700000000080', type: 'private' }, text: `/start ${code}` } },
        { update_id: 8 },
        {},
        [],
        'text',
      ];
      const before = h.bot.calls.length;
      for (const update of ignored) expect(await h.postUpdate(update)).toEqual({ status: 200, body: { ok: true } });
      expect(await h.isLinked(accountId)).toBe(false);
      // The next reply is the first one since: none of the ignored updates was answered.
      expectReply(await h.say(chat.id, '/status'), chat.id, /not linked/);
      expect(h.bot.calls.length).toBe(before + 1);
    });

    it('still answers 200 and links when the Bot API fails or drops the connection, and logs it', async () => {
      for (const mode of ['error', 'reset'] as const) {
        h.bot.mode = mode;
        const accountId = await h.createAccount();
        const chatId = mode === 'error' ? 700_000_000_090 : 700_000_000_091;
        const failedCall = await h.say(chatId, `/start ${(await h.issueCode(accountId)).code}`);
        expectReply(failedCall, chatId, linkedText);
        expect(await h.isLinked(accountId)).toBe(true);
        await expect.poll(() => h.logLines.filter((line) => line.includes('telegram bot api')).length).toBeGreaterThan(mode === 'error' ? 0 : 1);
      }
      h.bot.mode = 'ok';
      expectReply(await h.say(700_000_000_090, '/status'), 700_000_000_090, /is linked/);
    });

    it('never writes the bot token or the webhook secret to the log', () => {
      const log = h.logLines.join('\n');
      expect(log).toContain('messenger linked');
      expect(log).toContain('telegram bot api refused');
      expect(log).toContain('telegram bot api unreachable');
      expect(log).not.toContain(botToken);
      expect(log).not.toContain(botToken.split(':')[1]);
      expect(log).not.toContain(webhookSecret);
    });
  });
}

describe('Telegram webhook without a configured bot', () => {
  let test: TestApp;
  let base: string;
  beforeAll(async () => {
    test = await startTestApp();
    await test.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => test?.close());

  it('answers 404 not_found, secret or not', async () => {
    const response = await fetch(`${base}/webhooks/telegram`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': webhookSecret },
      body: JSON.stringify(textUpdate(1, '/status')),
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('issues no link code, which nothing would redeem (the CLI still can, for a bot run elsewhere)', async () => {
    const { accountId } = await test.createAccount();
    const response = await fetch(`${base}/admin/accounts/${accountId}/messenger/link-code`, { method: 'POST', headers: { authorization: `Bearer ${test.adminToken}` } });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { metadata: { reason: unknown } } }).error.metadata.reason).toBe('messenger_not_configured');
  });
});

describe('switchyard admin link-code', () => {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-link-code-'));
  const databaseUrl = `sqlite:${join(directory, 'link.db')}`;
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(databaseUrl);
  });
  afterAll(async () => h?.close());


  it('prints a code and deep link that the bot then redeems, and a new code replaces the old one', async () => {
    const accountId = await h.createAccount('cli');
    const env = { DATABASE_URL: databaseUrl, TELEGRAM_BOT_USERNAME: `@${botUsername}` };
    const first = await runAdminCommand(['link-code', accountId], env);
    const second = await runAdminCommand(['link-code', accountId], env);
    expect(second.data).toEqual({ code: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/), expires_at: expect.any(String), deep_link: `https://t.me/${botUsername}?start=${second.data.code}` });

    const chatId = 700_000_000_100;
    expectReply(await h.say(chatId, `/start ${first.data.code}`), chatId, invalidText);
    expectReply(await h.say(chatId, `/start ${second.data.code}`), chatId, linkedText);
    expect(await h.isLinked(accountId)).toBe(true);
  });
});
