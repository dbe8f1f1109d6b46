import { createHash, createHmac } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { normalizeConfig } from '../../src/config/normalize-config.js';
import { parseConfigText } from '../../src/config/load-config.js';
import type { Config } from '../../src/config/types.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/start-smtp-server.js';
import { startTestApp, type TestApp } from '../helpers/start-test-app.js';
import { buildTestConfig, testCatalogYaml } from '../helpers/test-config.js';

export const botToken = '123456789:AAsign-in-test-token_never-logged';

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  /** The `sy_session` value a Set-Cookie of this answer sets, if any. */
  sessionCookie: string | undefined;
}

export interface PeopleHarness {
  test: TestApp;
  smtp: TestSmtpServer;
  clock: ManualClock;
  base: string;
  call(method: string, path: string, options?: { cookie?: string; headers?: Record<string, string>; body?: unknown }): Promise<Answer>;
  /** Asks for a magic link for `email` and answers the link read from the mail that arrives. */
  mailLink(email: string, returnTo?: string): Promise<string>;
  /** Follows a link without following its redirect. */
  open(link: string, cookie?: string): Promise<Answer>;
  /** Signs in by magic link; answers the session cookie, the CSRF token and the session's data. */
  signInByMail(email: string): Promise<{ cookie: string; csrf: string; data: any }>;
  /** The Login Widget's fields for a Telegram user, signed as Telegram signs them with `token`. */
  telegramFields(id: number, options?: { authDate?: number; token?: string; firstName?: string }): Record<string, string | number>;
  close(): Promise<void>;
}

/** A free loopback port: taken by a listener of the system's choice, then given back. */
function reservePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function sessionCookieOf(headers: Headers): string | undefined {
  for (const line of headers.getSetCookie()) {
    const match = /^sy_session=([^;]*)/.exec(line);
    if (match) return match[1];
  }
  return undefined;
}

/**
 * The real app over HTTP with every sign-in method on: a real SMTP server for magic links, a
 * Telegram bot token for the Login Widget, and a clock the test moves.
 */
export async function startPeopleHarness(databaseUrl: string, signup: string, configure?: (config: Config, base: string) => void | Promise<void>): Promise<PeopleHarness> {
  const smtp = await startSmtpServer();
  // The page's origin goes into the config (the links the gateway mails, the OIDC redirect URI)
  // before the app starts, so the port is chosen first.
  const port = await reservePort();
  const base = `http://127.0.0.1:${port}`;
  const clock = new ManualClock(Date.now());
  const yaml = `${testCatalogYaml}
auth:
  telegram: {login: true}
  email: {smtp_url: "${smtp.url}", from: "Switchyard <sign-in@switchyard.test>"}
signup: ${signup}
`;
  const server = { ...buildTestConfig({ databaseUrl }).server, publicUrl: base, telegram: { botToken, webhookSecret: 'webhook-secret', apiBaseUrl: 'http://127.0.0.1:9', botUsername: 'switchyard_test_bot' } };
  const config = normalizeConfig(parseConfigText(yaml, 'test.yaml', process.env), 'test.yaml', server);
  await configure?.(config, base);
  const test = await startTestApp({ databaseUrl, config, clock });
  await test.app.listen({ host: '127.0.0.1', port });

  const toAnswer = async (response: Response): Promise<Answer> => {
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // An HTML page or an empty body stays text.
    }
    return { status: response.status, headers: response.headers, body, sessionCookie: sessionCookieOf(response.headers) };
  };

  const harness: PeopleHarness = {
    test,
    smtp,
    clock,
    base,
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.cookie !== undefined) headers.cookie = `sy_session=${options.cookie}`;
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${base}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), redirect: 'manual' });
      return toAnswer(response);
    },
    async mailLink(email, returnTo) {
      const before = smtp.mails.filter((mail) => mail.to.includes(email)).length;
      const started = await harness.call('POST', '/auth/email/start', { body: returnTo === undefined ? { email } : { email, return_to: returnTo } });
      if (started.status !== 202) throw new Error(`email start: ${started.status} ${JSON.stringify(started.body)}`);
      const mails = await smtp.waitForMails(email, before + 1);
      const match = /(http:\/\/\S+\/auth\/email\/callback\?token=[A-Za-z0-9_%-]+)/.exec(mails[before].text);
      if (!match) throw new Error(`no link in the mail: ${mails[before].text}`);
      return match[1];
    },
    async open(link, cookie) {
      const response = await fetch(link, { redirect: 'manual', headers: cookie === undefined ? {} : { cookie: `sy_session=${cookie}` } });
      return toAnswer(response);
    },
    async signInByMail(email) {
      const landed = await harness.open(await harness.mailLink(email));
      if (landed.status !== 303 || !landed.sessionCookie) throw new Error(`sign-in by mail: ${landed.status} ${JSON.stringify(landed.body)}`);
      const session = await harness.call('GET', '/auth/session', { cookie: landed.sessionCookie });
      return { cookie: landed.sessionCookie, csrf: session.body.csrf_token, data: session.body.data };
    },
    telegramFields(id, options = {}) {
      const fields: Record<string, string | number> = {
        id,
        first_name: options.firstName ?? 'Ada',
        username: `user${id}`,
        auth_date: options.authDate ?? Math.floor(clock.now().getTime() / 1000),
      };
      // https://core.telegram.org/widgets/login#checking-authorization
      const dataCheckString = Object.keys(fields).sort().map((key) => `${key}=${fields[key]}`).join('\n');
      const secret = createHash('sha256').update(options.token ?? botToken).digest();
      return { ...fields, hash: createHmac('sha256', secret).update(dataCheckString).digest('hex') };
    },
    async close() {
      await test.close();
      await smtp.close();
    },
  };
  return harness;
}
