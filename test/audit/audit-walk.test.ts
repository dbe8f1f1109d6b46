import { runAdminCommand } from '../helpers/run-admin-command.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditActions } from '../../src/audit/audit-actions.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/start-oidc-provider.js';
import { testDatabases } from '../helpers/test-databases.js';
import { call, checkoutAndPay, startPaymentGateways, type PaymentGateways } from '../payments/start-payment-gateways.js';
import { startPeopleHarness, type PeopleHarness } from '../people/people-harness.js';

/**
 * Contract §8, issue 49 scope 4: every change the audit log covers, made the way a client makes
 * it (the HTTP API with a key or a session, the admin API, the CLI, Stripe's webhooks from the
 * fake Stripe, the sign-in routes), writes exactly one entry per account it concerns, with the
 * right actor, target and address, and no secret in it. A webhook delivered again writes nothing
 * more. The last test checks that every action of the vocabulary was walked.
 */

interface Entry {
  id: string;
  at: string;
  actor: { type: 'user' | 'key' | 'admin'; id: string };
  action: string;
  target: string | null;
  ip: string | null;
  details: Record<string, unknown>;
}

/** The actions walked below, each once it has been checked. */
const walked = new Set<string>();

/**
 * SLOT for the actions other branches of issue 49 write (members: `member.invite`, `member.join`,
 * `member.role`, `member.remove`; alerts: `alerts.update`). After merging them, list each here
 * and in `auditActions`, and walk it in the describe marked SLOT below; the coverage test fails
 * until every listed action has been walked.
 */
const slotActions: string[] = [];
// (Members and alerts, once merged, joined `auditActions` and are walked in the describe below.)

/** Every secret a walk handled: none may appear in any entry. */
const secrets = new Set<string>();

const admin = { type: 'admin', id: 'admin' } as const;
const paymentProvider = { type: 'admin', id: 'payment_provider' } as const;

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** An account's whole audit log as the operator console reads it. */
async function auditOf(base: string, adminToken: string, accountId: string): Promise<Entry[]> {
  const answer = await fetch(`${base}/admin/accounts/${accountId}/audit?limit=500`, { headers: { authorization: `Bearer ${adminToken}` } });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { data: Entry[] }).data;
}

/** Exactly one entry of `action` about `target`, with this actor and address; answers it and marks the action walked. */
function expectOne(entries: Entry[], action: string, target: string | null, expected: { actor: Entry['actor']; ip: string | null; details?: Record<string, unknown> }): Entry {
  const found = entries.filter((entry) => entry.action === action && entry.target === target);
  expect(found, `${action} on ${target}`).toHaveLength(1);
  expect(found[0]).toMatchObject({ actor: expected.actor, ip: expected.ip, ...(expected.details ? { details: expected.details } : {}) });
  walked.add(action);
  return found[0];
}

function expectNoSecrets(entries: Entry[]): void {
  const text = JSON.stringify(entries);
  for (const secret of secrets) expect(text.includes(secret), 'a secret in the audit log').toBe(false);
}

describe('keys, grants, codes, provider preferences and payments', () => {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-audit-'));
  const databaseUrl = `sqlite:${join(directory, 'audit.db')}`;
  const adminToken = 'test-admin-token';
  let gateways: PaymentGateways;
  let stripe: Stripe;
  let base: string;
  let accountId: string;
  let key: string;
  let keyId: string;
  let chargeId: string;
  beforeAll(async () => {
    gateways = await startPaymentGateways({ databaseUrl, webhookToFake: true });
    base = gateways.urls[0];
    const { hostname, port } = new URL(gateways.fake.url);
    stripe = new Stripe(gateways.fake.secretKey, { host: hostname, port, protocol: 'http' });
    secrets.add(gateways.fake.secretKey).add(gateways.fake.webhookSecret).add(adminToken);
  });
  afterAll(async () => gateways?.close());

  const runAdmin = (args: string[]) => runAdminCommand(args, { DATABASE_URL: databaseUrl });
  const audit = () => auditOf(base, adminToken, accountId);
  const transactions = async () => (await call(base, key, 'GET', '/v1/credits/transactions?limit=100')).body.data as Array<{ id: string; kind: string; amount: number }>;
  const ledgerIdOf = async (kind: string, amount: number) => {
    const rows = (await transactions()).filter((row) => row.kind === kind && row.amount === amount);
    expect(rows, `${kind} of ${amount}`).toHaveLength(1);
    return rows[0].id;
  };

  it('the admin API: an account with its management key and opening credit, and a grant', async () => {
    const created = await call(base, adminToken, 'POST', '/admin/accounts', { name: 'walked', credits: 1 });
    expect(created.status).toBe(201);
    accountId = created.body.data.id;
    key = created.body.key;
    secrets.add(key);
    keyId = (await call(base, key, 'GET', '/v1/key')).body.data.id;
    expect((await call(base, adminToken, 'POST', `/admin/accounts/${accountId}/credits`, { amount: 2 })).status).toBe(200);
    const entries = await audit();
    expectOne(entries, 'key.create', keyId, { actor: admin, ip: '127.0.0.1', details: { name: 'management', management: true } });
    expectOne(entries, 'money.grant', await ledgerIdOf('grant', 1), { actor: admin, ip: '127.0.0.1', details: { amount: 1, note: 'opening credit' } });
    expectOne(entries, 'money.grant', await ledgerIdOf('grant', 2), { actor: admin, ip: '127.0.0.1', details: { amount: 2 } });
  });

  it('the CLI: a grant and a key, by the operator from no address', async () => {
    await runAdmin(['add-credits', accountId, '3']);
    const made = await runAdmin(['create-key', accountId, '--name', 'cli', '--limit', '4']);
    secrets.add(made.key);
    const entries = await audit();
    expectOne(entries, 'money.grant', await ledgerIdOf('grant', 3), { actor: admin, ip: null, details: { amount: 3 } });
    expectOne(entries, 'key.create', made.data.id, { actor: admin, ip: null, details: { name: 'cli', management: false, limit: 4 } });
    // The operator's console revokes it.
    expect((await call(base, adminToken, 'DELETE', `/admin/accounts/${accountId}/keys/${made.data.id}`)).status).toBe(200);
    expectOne(await audit(), 'key.revoke', made.data.id, { actor: admin, ip: '127.0.0.1' });
  });

  it('the public API with a management key: a key made, limited and revoked; a default provider', async () => {
    const made = await call(base, key, 'POST', '/v1/keys', { name: 'worker', limit: 1, requests_per_minute: 60 });
    expect(made.status).toBe(201);
    secrets.add(made.body.key);
    const worker = made.body.data.id as string;
    expect((await call(base, key, 'PATCH', `/v1/keys/${worker}/limit`, { limit: 2, max_price: { prompt: 5 } })).status).toBe(200);
    expect((await call(base, key, 'DELETE', `/v1/keys/${worker}`)).status).toBe(200);
    const providers = (await call(base, key, 'GET', '/v1/providers')).body.data as Array<{ model: string; providers: Array<{ provider: string }> }>;
    const choice = providers.find((model) => model.providers.length > 0)!;
    expect((await call(base, key, 'PATCH', '/v1/providers', { model: choice.model, provider: choice.providers[0].provider })).status).toBe(200);
    const byKey = { type: 'key', id: keyId } as const;
    const entries = await audit();
    expectOne(entries, 'key.create', worker, { actor: byKey, ip: '127.0.0.1', details: { name: 'worker', management: false, limit: 1, requests_per_minute: 60 } });
    expectOne(entries, 'key.limit', worker, { actor: byKey, ip: '127.0.0.1', details: { limit: 2, max_price: { prompt: 5 } } });
    expectOne(entries, 'key.revoke', worker, { actor: byKey, ip: '127.0.0.1' });
    expectOne(entries, 'provider.default', choice.model, { actor: byKey, ip: '127.0.0.1', details: { model: choice.model, provider: choice.providers[0].provider } });
  });

  it('a redemption code: the batch is named, never the code', async () => {
    const batch = await call(base, adminToken, 'POST', '/admin/redemption-codes', { amount: 1.5, count: 1 });
    expect(batch.status).toBe(201);
    const code = batch.body.data.codes[0] as string;
    secrets.add(code).add(code.replaceAll('-', ''));
    expect((await call(base, key, 'POST', '/v1/credits/redeem', { code })).status).toBe(200);
    expectOne(await audit(), 'money.redemption', await ledgerIdOf('redemption', 1.5), { actor: { type: 'key', id: keyId }, ip: '127.0.0.1', details: { amount: 1.5, batch_id: batch.body.data.id } });
  });

  it("a Checkout top-up names who started it; a delivery repeated writes nothing more", async () => {
    const { sessionId } = await checkoutAndPay(gateways, key, 5);
    await gateways.fake.delivered();
    expect((await gateways.fake.deliver(`${base}/webhooks/stripe`, gateways.fake.lastEvent('checkout.session.completed', sessionId))).status).toBe(200);
    const intentId = String(gateways.fake.sessions.get(sessionId)!.payment_intent);
    chargeId = String(gateways.fake.paymentIntents.get(intentId)!.latest_charge);
    expectOne(await audit(), 'money.top_up', await ledgerIdOf('top_up', 5), { actor: { type: 'key', id: keyId }, ip: null, details: { amount: 5, reference: `stripe:checkout:${sessionId}` } });
  });

  it('auto top-up: its settings by the key, its payment by the provider', async () => {
    const balance = (await call(base, key, 'GET', '/v1/credits')).body.data.balance as number;
    const threshold = Math.floor((balance - 0.0001) * 10_000) / 10_000;
    expect((await call(base, key, 'PUT', '/v1/credits/auto-top-up', { enabled: true, threshold, amount: 10 })).status).toBe(200);
    expectOne(await audit(), 'money.auto_top_up_settings', null, { actor: { type: 'key', id: keyId }, ip: '127.0.0.1', details: { enabled: true, threshold, amount: 10 } });
    const chat = () => call(base, key, 'POST', '/v1/chat/completions', { model: 'sim/openai-model', messages: [{ role: 'user', content: 'Say something.' }], max_tokens: 20 });
    await waitFor(
      async () => {
        await chat();
        return transactions();
      },
      (rows) => rows.some((row) => row.kind === 'auto_top_up'),
    );
    await gateways.fake.delivered();
    const succeeded = [...gateways.fake.events].reverse().find((event) => event.type === 'payment_intent.succeeded' && (event.data.object.metadata as Record<string, string>).switchyard_kind === 'auto_top_up')!;
    expect((await gateways.fake.deliver(`${base}/webhooks/stripe`, succeeded)).status).toBe(200);
    expectOne(await audit(), 'money.auto_top_up', await ledgerIdOf('auto_top_up', 10), { actor: paymentProvider, ip: null, details: { amount: 10 } });
    // Off again, so the refund and dispute below start no second payment.
    expect((await call(base, key, 'PUT', '/v1/credits/auto-top-up', { enabled: false, threshold, amount: 10 })).status).toBe(200);
  });

  it('a refund, a dispute and a won dispute, by the provider, once each', async () => {
    await stripe.refunds.create({ charge: chargeId, amount: 100 });
    await gateways.fake.delivered();
    expect((await gateways.fake.deliver(`${base}/webhooks/stripe`, gateways.fake.lastEvent('charge.refunded'))).status).toBe(200);
    const opened = gateways.fake.openDispute(chargeId, 200);
    await gateways.fake.delivered();
    expect((await gateways.fake.deliver(`${base}/webhooks/stripe`, opened)).status).toBe(200);
    const won = gateways.fake.closeDispute(String(opened.data.object.id), 'won');
    await gateways.fake.delivered();
    expect((await gateways.fake.deliver(`${base}/webhooks/stripe`, won)).status).toBe(200);
    const entries = await audit();
    expectOne(entries, 'money.refund', await ledgerIdOf('refund', -1), { actor: paymentProvider, ip: null, details: { amount: -1 } });
    expectOne(entries, 'money.dispute', await ledgerIdOf('dispute', -2), { actor: paymentProvider, ip: null, details: { amount: -2 } });
    expectOne(entries, 'money.dispute_won', await ledgerIdOf('dispute_won', 2), { actor: paymentProvider, ip: null, details: { amount: 2 } });
  });

  it('holds one entry per change and per ledger entry, and no secret', async () => {
    const entries = await audit();
    const money = entries.filter((entry) => entry.action.startsWith('money.') && entry.action !== 'money.auto_top_up_settings');
    expect(money.map((entry) => entry.target).sort()).toEqual((await transactions()).map((row) => row.id).sort());
    // 3 keys made and 2 revoked, 1 limit, 1 provider, 2 auto top-up settings, and the money.
    expect(entries).toHaveLength(3 + 2 + 1 + 1 + 2 + money.length);
    expectNoSecrets(entries);
  });
});

describe.each(testDatabases())('sessions, the sign-up bonus, and a signed-in user as the actor on $name', (database) => {
  let h: PeopleHarness;
  let idp: TestOidcProvider;
  beforeAll(async () => {
    h = await startPeopleHarness(database.url, '{mode: open, bonus_credits: 1}', async (config, base) => {
      idp = await startOidcProvider({ clients: [{ client_id: 'switchyard', client_secret: 'gateway-secret', redirect_uris: [`${base}/auth/oidc/test/callback`] }], accounts: [{ sub: 'ann', email: 'ann@example.com', email_verified: true, name: 'Ann' }] });
      config.auth!.oidc = [{ id: 'test', name: 'Test IdP', issuer: idp.issuer, client_id: 'switchyard', client_secret: 'gateway-secret' }];
    });
    secrets.add('gateway-secret');
  });
  afterAll(async () => {
    await h?.close();
    await idp?.close();
  });
  const audit = (accountId: string) => auditOf(h.base, h.test.adminToken, accountId);
  const currentSessionId = async (cookie: string) => ((await h.call('GET', '/auth/sessions', { cookie })).body.data as Array<{ id: string; current: boolean }>).find((session) => session.current)!.id;

  it('sign-in by mail, OIDC and Telegram: the bonus once, and sign-in entries in every account of the user', async () => {
    const link = await h.mailLink('ann@example.com');
    secrets.add(new URL(link).searchParams.get('token')!);
    const byMail = await h.open(link);
    const mailCookie = byMail.sessionCookie!;
    const mailView = (await h.call('GET', '/auth/session', { cookie: mailCookie })).body;
    secrets.add(mailCookie).add(mailView.csrf_token);
    const ann = { type: 'user', id: mailView.data.user.id } as const;
    const own = mailView.data.accounts[0].id as string;
    const mailSession = await currentSessionId(mailCookie);
    const bonus = (await h.call('GET', '/v1/credits/transactions', { cookie: mailCookie, headers: { 'x-switchyard-account': own } })).body.data[0];
    let entries = await audit(own);
    expectOne(entries, 'money.signup_bonus', bonus.id, { actor: ann, ip: '127.0.0.1', details: { amount: 1, method: 'email' } });
    expectOne(entries, 'session.sign_in', mailSession, { actor: ann, ip: '127.0.0.1', details: { method: 'email' } });

    // Ann is made an admin of a second account; the next sign-in is written to both.
    const shared = await h.test.createAccount({ name: 'shared' });
    secrets.add(shared.key);
    expect((await h.call('POST', `/admin/accounts/${shared.accountId}/members`, { headers: { authorization: `Bearer ${h.test.adminToken}` }, body: { email: 'ann@example.com', role: 'admin' } })).status).toBe(201);
    const started = await h.call('GET', '/auth/oidc/test/start');
    const byOidc = await h.open(await idp.completeAuthorization(started.headers.get('location')!, { login: 'ann' }));
    const oidcCookie = byOidc.sessionCookie!;
    const oidcCsrf = (await h.call('GET', '/auth/session', { cookie: oidcCookie })).body.csrf_token as string;
    secrets.add(oidcCookie).add(oidcCsrf);
    const oidcSession = await currentSessionId(oidcCookie);
    for (const accountId of [own, shared.accountId]) expectOne(await audit(accountId), 'session.sign_in', oidcSession, { actor: ann, ip: '127.0.0.1', details: { method: 'oidc' } });
    // No bonus for a user who already has one.
    expect((await audit(own)).filter((entry) => entry.action === 'money.signup_bonus')).toHaveLength(1);

    const byTelegram = await h.call('POST', '/auth/telegram', { body: h.telegramFields(4242) });
    expect(byTelegram.status).toBe(200);
    secrets.add(byTelegram.sessionCookie!).add(byTelegram.body.csrf_token);
    const bob = { type: 'user', id: byTelegram.body.data.user.id } as const;
    const bobs = byTelegram.body.data.accounts[0].id as string;
    entries = await audit(bobs);
    expectOne(entries, 'session.sign_in', await currentSessionId(byTelegram.sessionCookie!), { actor: bob, ip: '127.0.0.1', details: { method: 'telegram' } });
    expect(entries.filter((entry) => entry.action === 'money.signup_bonus')).toHaveLength(1);
    expect(entries.every((entry) => entry.actor.id === bob.id)).toBe(true);

    // A key made by Ann's session in the shared account names Ann, not a key.
    const asAnn = { cookie: oidcCookie, headers: { 'x-switchyard-account': shared.accountId, 'x-csrf-token': oidcCsrf } };
    const made = await h.call('POST', '/v1/keys', { ...asAnn, body: { name: 'ann-made' } });
    expect(made.status).toBe(201);
    secrets.add(made.body.key);
    expectOne(await audit(shared.accountId), 'key.create', made.body.data.id, { actor: ann, ip: '127.0.0.1', details: { name: 'ann-made' } });

    // Ann ends her mail session from the OIDC one, then signs out of it.
    expect((await h.call('DELETE', `/auth/sessions/${mailSession}`, asAnn)).status).toBe(204);
    expect((await h.call('POST', '/auth/sign-out', asAnn)).status).toBe(204);
    for (const accountId of [own, shared.accountId]) {
      entries = await audit(accountId);
      expectOne(entries, 'session.end', mailSession, { actor: ann, ip: '127.0.0.1' });
      expectOne(entries, 'session.sign_out', oidcSession, { actor: ann, ip: '127.0.0.1' });
      expectNoSecrets(entries);
    }
    // The shared account's log: its management key (by the operator), then Ann's doings there
    // (adding Ann writes member entries of its own, walked with the members).
    const sharedLog = (await audit(shared.accountId)).filter((entry) => !entry.action.startsWith('member.'));
    expect(sharedLog.map((entry) => entry.action).reverse()).toEqual(['key.create', 'session.sign_in', 'key.create', 'session.end', 'session.sign_out']);
    expectNoSecrets(await audit(bobs));
  });
});

// The members' and alerts' actions (issue 49, scopes 2 and 3), walked through the real API.
describe.each(testDatabases())('members, invites and alert settings on $name', (database) => {
  let h: PeopleHarness;
  beforeAll(async () => {
    h = await startPeopleHarness(database.url, '{mode: open}');
  });
  afterAll(async () => h?.close());

  it('an invite, its acceptance, a role change, a revoked invite, a removal and a change of alerts each write one entry', async () => {
    const owner = await h.signInByMail('owner@example.com');
    const bob = await h.signInByMail('bob@example.com');
    secrets.add(owner.cookie).add(owner.csrf).add(bob.cookie).add(bob.csrf);
    const accountId = owner.data.accounts[0].id as string;
    const ownerActor = { type: 'user', id: owner.data.user.id } as const;
    const bobActor = { type: 'user', id: bob.data.user.id } as const;
    const asOwner = { cookie: owner.cookie, headers: { 'x-switchyard-account': accountId, 'x-csrf-token': owner.csrf } };

    const invite = await h.call('POST', '/v1/members/invites', { ...asOwner, body: { email: 'bob@example.com', role: 'viewer' } });
    expect(invite.status).toBe(201);
    const token = new URL(invite.body.data.url).pathname.split('/').pop()!;
    secrets.add(token);
    expect((await h.call('POST', `/invites/${token}/accept`, { cookie: bob.cookie, headers: { 'x-csrf-token': bob.csrf } })).status).toBe(200);
    expect((await h.call('PATCH', `/v1/members/${bob.data.user.id}`, { ...asOwner, body: { role: 'member' } })).status).toBe(200);
    expect((await h.call('PATCH', `/v1/members/${bob.data.user.id}`, { ...asOwner, body: { limit: 5, limit_reset: 'daily' } })).status).toBe(200);
    const second = await h.call('POST', '/v1/members/invites', { ...asOwner, body: { role: 'viewer' } });
    secrets.add(new URL(second.body.data.url).pathname.split('/').pop()!);
    expect((await h.call('DELETE', `/v1/members/invites/${second.body.data.id}`, asOwner)).status).toBeLessThan(300);
    expect((await h.call('DELETE', `/v1/members/${bob.data.user.id}`, asOwner)).status).toBeLessThan(300);
    const alerts = await h.call('PUT', '/v1/alerts', { ...asOwner, body: { low_balance: { threshold: 1 }, key_limit_percents: [80, 100], channels: { email: true, telegram: false, webhook: null } } });
    expect(alerts.status).toBe(200);

    const entries = await auditOf(h.base, h.test.adminToken, accountId);
    expectOne(entries, 'member.invite', invite.body.data.id, { actor: ownerActor, ip: '127.0.0.1' });
    expectOne(entries, 'member.invite_revoke', second.body.data.id, { actor: ownerActor, ip: '127.0.0.1' });
    expectOne(entries, 'member.join', bob.data.user.id, { actor: bobActor, ip: '127.0.0.1' });
    expectOne(entries, 'member.role', bob.data.user.id, { actor: ownerActor, ip: '127.0.0.1' });
    expectOne(entries, 'member.limit', bob.data.user.id, { actor: ownerActor, ip: '127.0.0.1' });
    expectOne(entries, 'member.remove', bob.data.user.id, { actor: ownerActor, ip: '127.0.0.1' });
    expectOne(entries, 'alerts.update', null, { actor: ownerActor, ip: '127.0.0.1' });
    expectNoSecrets(entries);
  });
});

describe('the vocabulary', () => {
  it('every action of docs/api.md\'s list was walked above', () => {
    expect([...walked].sort()).toEqual([...Object.keys(auditActions), ...slotActions].sort());
  });
});
