import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertMembership } from '../../src/store/repositories/memberships.js';
import { testDatabases } from '../helpers/test-databases.js';
import { startPeopleHarness, type PeopleHarness } from './people-harness.js';

/**
 * Sign-in by magic link and Telegram, sessions on the account endpoints, and the security cases
 * of issue 48 (scope 5) that belong to identity: each case below fails without its guard.
 */
for (const database of testDatabases()) {
  describe(`sign-in and sessions (${database.name})`, () => {
    let h: PeopleHarness;
    beforeAll(async () => {
      h = await startPeopleHarness(database.url, '{mode: open, bonus_credits: 1}');
    });
    afterAll(() => h?.close());

    it('signs up by magic link: 202, a mail with a single-use link, a session cookie, an account it owns with the bonus', async () => {
      const link = await h.mailLink('Ada@Example.com', '/app?tab=keys');
      expect(link.startsWith(`${h.base}/auth/email/callback?token=`)).toBe(true);
      const landed = await h.open(link);
      expect(landed.status).toBe(303);
      expect(landed.headers.get('location')).toBe('/app?tab=keys');
      const setCookie = landed.headers.getSetCookie().find((line) => line.startsWith('sy_session='))!;
      expect(setCookie).toMatch(/HttpOnly/i);
      expect(setCookie).toMatch(/SameSite=Lax/i);
      expect(setCookie).toMatch(/Path=\//);
      // The page is served over plain http to loopback: a Secure cookie would never come back.
      expect(setCookie).not.toMatch(/Secure/i);
      expect(landed.sessionCookie).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const session = await h.call('GET', '/auth/session', { cookie: landed.sessionCookie });
      expect(session.status).toBe(200);
      expect(session.body.data.user).toMatchObject({ email: 'ada@example.com', telegram_linked: false });
      expect(session.body.data.accounts).toEqual([{ id: expect.any(String), name: 'ada', role: 'owner' }]);
      expect(typeof session.body.csrf_token).toBe('string');
      const credits = await h.call('GET', '/v1/credits', { cookie: landed.sessionCookie, headers: { 'x-switchyard-account': session.body.data.accounts[0].id } });
      expect(credits.status).toBe(200);
      expect(credits.body.data.total_credits).toBe(1);
    });

    it('uses a magic link once, and not after 15 minutes', async () => {
      const link = await h.mailLink('once@example.com');
      expect((await h.open(link)).status).toBe(303);
      const again = await h.open(link);
      expect(again.status).toBe(400);
      expect(again.sessionCookie).toBeUndefined();
      expect(String(again.body)).toContain('used already');

      const late = await h.mailLink('late@example.com');
      h.clock.advance(15 * 60_000 + 1000);
      const expired = await h.open(late);
      expect(expired.status).toBe(400);
      expect(expired.sessionCookie).toBeUndefined();
    });

    it('answers a known and an unknown address alike, and mails both (no account enumeration)', async () => {
      await h.signInByMail('known@example.com');
      const known = await h.call('POST', '/auth/email/start', { body: { email: 'known@example.com' } });
      const unknown = await h.call('POST', '/auth/email/start', { body: { email: 'nobody@example.com' } });
      expect(known.status).toBe(202);
      expect(unknown.status).toBe(202);
      expect(unknown.body).toEqual(known.body);
      await h.smtp.waitForMails('known@example.com', 2);
      await h.smtp.waitForMails('nobody@example.com', 1);
    });

    it('mails at most 5 links per address per hour: the 6th request answers 202 and sends nothing', async () => {
      const email = 'flood@example.com';
      const answers = await Promise.all(Array.from({ length: 6 }, () => h.call('POST', '/auth/email/start', { body: { email } })));
      expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202, 202, 202]);
      await h.smtp.waitForMails(email, 5);
      // A sentinel mailed after the flood has arrived; the 6th would have been sent before it.
      await h.mailLink('sentinel@example.com');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(h.smtp.mails.filter((mail) => mail.to.includes(email))).toHaveLength(5);
      // An hour later the address may have links again, and the links of the hour before are swept.
      h.clock.advance(3600_000 + 1000);
      await h.mailLink(email);
      const hourAgo = new Date(h.clock.now().getTime() - 3600_000).toISOString();
      const db = h.test.context.store.db;
      expect(await db.selectFrom('email_sign_in_tokens').select('token_hash').where('created_at', '<', hourAgo).execute()).toEqual([]);
      expect(await db.selectFrom('email_sign_in_senders').select('email').where('last_requested_at', '<', hourAgo).execute()).toEqual([]);
      expect(await db.selectFrom('email_sign_in_tokens').select('email').where('email', '=', email).execute()).toHaveLength(1);
    });

    it('redirects only to a same-origin path after sign-in (open redirects refused)', async () => {
      const spellings = ['https://evil.example/', '//evil.example/x', '/\\evil.example', '\\\\evil.example', '/\t/evil.example', 'javascript:alert(1)', 'evil.example', '/%0d%0aSet-Cookie:x=y'];
      for (const [index, returnTo] of spellings.entries()) {
        const landed = await h.open(await h.mailLink(`redirect${index}@example.com`, returnTo));
        expect([returnTo, landed.status, landed.headers.get('location')]).toEqual([returnTo, 303, returnTo.startsWith('/%0d') ? returnTo : '/']);
      }
      const kept = await h.open(await h.mailLink('redirect-ok@example.com', '/app/settings?x=1#top'));
      expect(kept.headers.get('location')).toBe('/app/settings?x=1#top');
    });

    it('starts a new session at sign-in and ends the one the browser brought (no session fixation)', async () => {
      const planted = (await h.signInByMail('attacker@example.com')).cookie;
      const landed = await h.open(await h.mailLink('victim@example.com'), planted);
      expect(landed.status).toBe(303);
      expect(landed.sessionCookie).toBeDefined();
      expect(landed.sessionCookie).not.toBe(planted);
      expect((await h.call('GET', '/auth/session', { cookie: planted })).status).toBe(401);
      const victim = await h.call('GET', '/auth/session', { cookie: landed.sessionCookie });
      expect(victim.body.data.user.email).toBe('victim@example.com');
      // A made-up cookie value is never adopted either.
      const invented = await h.open(await h.mailLink('victim@example.com'), 'chosen-by-the-attacker');
      expect(invented.sessionCookie).not.toBe('chosen-by-the-attacker');
    });

    it('refuses a change made with a session without its CSRF token, or with a wrong one', async () => {
      const { cookie, csrf, data } = await h.signInByMail('csrf@example.com');
      const account = { 'x-switchyard-account': data.accounts[0].id };
      const missing = await h.call('POST', '/v1/keys', { cookie, headers: account, body: { name: 'k' } });
      expect(missing.status).toBe(403);
      expect(missing.body.error.code).toBe('forbidden');
      const wrong = await h.call('POST', '/v1/keys', { cookie, headers: { ...account, 'x-csrf-token': `${csrf.slice(0, -2)}xx` }, body: { name: 'k' } });
      expect(wrong.status).toBe(403);
      const signOut = await h.call('POST', '/auth/sign-out', { cookie });
      expect(signOut.status).toBe(403);
      const right = await h.call('POST', '/v1/keys', { cookie, headers: { ...account, 'x-csrf-token': csrf }, body: { name: 'k' } });
      expect(right.status).toBe(201);
      // Reads need no token.
      expect((await h.call('GET', '/v1/keys', { cookie, headers: account })).status).toBe(200);
    });

    it('acts within the role: a viewer only reads, a member manages its own keys and no account setting (contract §8)', async () => {
      const owner = await h.signInByMail('owner@example.com');
      const accountId = owner.data.accounts[0].id as string;
      const member = await h.signInByMail('member@example.com');
      const viewer = await h.signInByMail('viewer@example.com');
      const now = new Date().toISOString();
      await insertMembership(h.test.context.store.db, { userId: member.data.user.id, accountId, role: 'member', createdAt: now });
      await insertMembership(h.test.context.store.db, { userId: viewer.data.user.id, accountId, role: 'viewer', createdAt: now });
      const as = (who: { cookie: string; csrf: string }) => ({ cookie: who.cookie, headers: { 'x-switchyard-account': accountId, 'x-csrf-token': who.csrf } });

      const create = await h.call('POST', '/v1/keys', { ...as(viewer), body: { name: 'mine' } });
      expect(create.status).toBe(403);
      expect(create.body.error.code).toBe('forbidden');
      expect((await h.call('GET', '/v1/keys', as(viewer))).status).toBe(403);
      expect((await h.call('POST', '/v1/keys', { ...as(member), body: { name: 'mine' } })).status).toBe(201);
      expect((await h.call('GET', '/v1/credits/transactions', as(member))).status).toBe(403);
      for (const who of [member, viewer]) {
        expect((await h.call('GET', '/v1/usage', as(who))).status).toBe(200);
        expect((await h.call('GET', '/v1/credits', as(who))).status).toBe(200);
      }
      const change = { model: 'acme/chat-small', provider: 'sim' };
      expect((await h.call('PATCH', '/v1/providers', { ...as(viewer), body: change })).status).toBe(403);
      expect((await h.call('PATCH', '/v1/providers', { ...as(member), body: change })).status).toBe(403);
      expect((await h.call('PATCH', '/v1/providers', { ...as(owner), body: change })).status).toBe(200);
      expect((await h.call('POST', '/v1/keys', { ...as(owner), body: { name: 'owner key' } })).status).toBe(201);
    });

    it('needs x-switchyard-account naming an account of the user; another account is as unknown as none', async () => {
      const me = await h.signInByMail('me@example.com');
      const other = await h.signInByMail('other@example.com');
      const missing = await h.call('GET', '/v1/credits', { cookie: me.cookie });
      expect(missing.status).toBe(403);
      const foreign = await h.call('GET', '/v1/credits', { cookie: me.cookie, headers: { 'x-switchyard-account': other.data.accounts[0].id } });
      const unknown = await h.call('GET', '/v1/credits', { cookie: me.cookie, headers: { 'x-switchyard-account': 'acc_does_not_exist' } });
      expect([foreign.status, unknown.status]).toEqual([404, 404]);
      expect(foreign.body.error.message.replace(other.data.accounts[0].id, 'X')).toBe(unknown.body.error.message.replace('acc_does_not_exist', 'X'));
    });

    it('does not take a session on paid endpoints: /v1/chat/completions stays key-only (401)', async () => {
      const { cookie, csrf, data } = await h.signInByMail('spender@example.com');
      const answer = await h.call('POST', '/v1/chat/completions', {
        cookie,
        headers: { 'x-switchyard-account': data.accounts[0].id, 'x-csrf-token': csrf },
        body: { model: 'acme/chat-small', messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe('invalid_api_key');
    });

    it('ends a session by sign-out and by DELETE /auth/sessions/{id} from another session', async () => {
      const first = await h.signInByMail('leaving@example.com');
      const second = await h.signInByMail('leaving@example.com');
      const account = { 'x-switchyard-account': first.data.accounts[0].id };
      const list = await h.call('GET', '/auth/sessions', { cookie: second.cookie });
      expect(list.body.data).toHaveLength(2);
      const firstId = list.body.data.find((session: { current: boolean }) => !session.current).id as string;
      // Someone else's session id is unknown to this user.
      const stranger = await h.signInByMail('stranger@example.com');
      expect((await h.call('DELETE', `/auth/sessions/${firstId}`, { cookie: stranger.cookie, headers: { 'x-csrf-token': stranger.csrf } })).status).toBe(404);
      expect((await h.call('GET', '/v1/credits', { cookie: first.cookie, headers: account })).status).toBe(200);

      const ended = await h.call('DELETE', `/auth/sessions/${firstId}`, { cookie: second.cookie, headers: { 'x-csrf-token': second.csrf } });
      expect(ended.status).toBe(204);
      expect((await h.call('GET', '/auth/session', { cookie: first.cookie })).status).toBe(401);
      expect((await h.call('GET', '/v1/credits', { cookie: first.cookie, headers: account })).status).toBe(401);

      const signOut = await h.call('POST', '/auth/sign-out', { cookie: second.cookie, headers: { 'x-csrf-token': second.csrf } });
      expect(signOut.status).toBe(204);
      expect(signOut.headers.getSetCookie().some((line) => /^sy_session=;/.test(line))).toBe(true);
      expect((await h.call('GET', '/auth/session', { cookie: second.cookie })).status).toBe(401);
      expect((await h.call('GET', '/v1/credits', { cookie: second.cookie, headers: account })).status).toBe(401);
    });

    it('ends a session after 30 days without use', async () => {
      const { cookie, data } = await h.signInByMail('idle@example.com');
      h.clock.advance(29 * 24 * 3600_000);
      expect((await h.call('GET', '/v1/credits', { cookie, headers: { 'x-switchyard-account': data.accounts[0].id } })).status).toBe(200);
      h.clock.advance(29 * 24 * 3600_000);
      expect((await h.call('GET', '/auth/session', { cookie })).status).toBe(200);
      h.clock.advance(30 * 24 * 3600_000 + 60_000);
      expect((await h.call('GET', '/auth/session', { cookie })).status).toBe(401);
      // Sessions nobody came back to are swept at the next sign-in of anyone.
      await h.signInByMail('someone-else@example.com');
      const monthAgo = new Date(h.clock.now().getTime() - 30 * 24 * 3600_000).toISOString();
      expect(await h.test.context.store.db.selectFrom('sessions').select('id').where('last_used_at', '<', monthAgo).execute()).toEqual([]);
    });

    it('signs in with the Telegram Login Widget, links the messenger; refuses a forged or stale hash', async () => {
      const signedIn = await h.call('POST', '/auth/telegram', { body: h.telegramFields(424242) });
      expect(signedIn.status).toBe(200);
      expect(signedIn.sessionCookie).toBeDefined();
      expect(signedIn.body.data.user).toMatchObject({ name: 'Ada', email: null, telegram_linked: true });
      const accountId = signedIn.body.data.accounts[0].id as string;
      const messenger = await h.call('GET', '/v1/messenger', { cookie: signedIn.sessionCookie, headers: { 'x-switchyard-account': accountId } });
      expect(messenger.status).toBe(200);
      expect(JSON.stringify(messenger.body)).toContain('telegram');

      const forged = { ...h.telegramFields(424242), first_name: 'Mallory' };
      expect((await h.call('POST', '/auth/telegram', { body: forged })).status).toBe(403);
      const otherBot = h.telegramFields(424242, { token: '987654321:AAanother-bot' });
      expect((await h.call('POST', '/auth/telegram', { body: otherBot })).status).toBe(403);
      const stale = h.telegramFields(424242, { authDate: Math.floor(h.clock.now().getTime() / 1000) - 24 * 3600 - 60 });
      const staleAnswer = await h.call('POST', '/auth/telegram', { body: stale });
      expect(staleAnswer.status).toBe(403);
      expect(staleAnswer.body.error.message).toContain('24 hours');
      expect(staleAnswer.sessionCookie).toBeUndefined();

      // A cross-site form can post text/plain that looks like JSON, never application/json: it
      // cannot sign a visitor in as the attacker (login CSRF) with the attacker's widget answer.
      const form = await fetch(`${h.base}/auth/telegram`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(h.telegramFields(424242)) });
      expect(form.status).toBe(400);
      expect(form.headers.getSetCookie()).toEqual([]);
    });

    it('grants the sign-up bonus once per identity, even to a new user of the same address or Telegram id', async () => {
      const db = h.test.context.store.db;
      const creditsOf = async (who: { cookie: string; accountId: string }) =>
        (await h.call('GET', '/v1/credits', { cookie: who.cookie, headers: { 'x-switchyard-account': who.accountId } })).body.data.total_credits as number;
      // The operator removes a person entirely; they sign up again with the same address.
      const removeUser = async (userId: string) => {
        await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
        await db.deleteFrom('memberships').where('user_id', '=', userId).execute();
        await db.deleteFrom('users').where('id', '=', userId).execute();
      };

      const first = await h.signInByMail('bonus@example.com');
      expect(await creditsOf({ cookie: first.cookie, accountId: first.data.accounts[0].id })).toBe(1);
      const again = await h.signInByMail('bonus@example.com');
      expect(again.data.accounts).toEqual(first.data.accounts);
      expect(await creditsOf({ cookie: again.cookie, accountId: again.data.accounts[0].id })).toBe(1);
      await removeUser(first.data.user.id);
      const reborn = await h.signInByMail('bonus@example.com');
      expect(reborn.data.accounts[0].id).not.toBe(first.data.accounts[0].id);
      expect(await creditsOf({ cookie: reborn.cookie, accountId: reborn.data.accounts[0].id })).toBe(0);

      const telegram = await h.call('POST', '/auth/telegram', { body: h.telegramFields(777) });
      const telegramAccount = telegram.body.data.accounts[0].id as string;
      expect(await creditsOf({ cookie: telegram.sessionCookie!, accountId: telegramAccount })).toBe(1);
      await removeUser(telegram.body.data.user.id);
      const telegramAgain = await h.call('POST', '/auth/telegram', { body: h.telegramFields(777) });
      expect(telegramAgain.body.data.accounts[0].id).not.toBe(telegramAccount);
      expect(await creditsOf({ cookie: telegramAgain.sessionCookie!, accountId: telegramAgain.body.data.accounts[0].id })).toBe(0);
    });

    it('makes one user, one account and one bonus when the same new person signs in twice at once', async () => {
      const links = [await h.mailLink('twice@example.com'), await h.mailLink('twice@example.com')];
      const landed = await Promise.all(links.map((link) => h.open(link)));
      expect(landed.map((answer) => answer.status)).toEqual([303, 303]);
      const sessions = await Promise.all(landed.map((answer) => h.call('GET', '/auth/session', { cookie: answer.sessionCookie })));
      expect(sessions[0].body.data.user.id).toBe(sessions[1].body.data.user.id);
      expect(sessions[0].body.data.accounts).toHaveLength(1);
      const users = await h.call('GET', '/admin/users?email=twice@example.com', { headers: { authorization: `Bearer ${h.test.adminToken}` } });
      expect(users.body.data).toHaveLength(1);
      const credits = await h.call('GET', '/v1/credits', { cookie: landed[0].sessionCookie, headers: { 'x-switchyard-account': sessions[0].body.data.accounts[0].id } });
      expect(credits.body.data.total_credits).toBe(1);
    });

    it('lists what is on at /auth/providers', async () => {
      const providers = await h.call('GET', '/auth/providers');
      expect(providers.body.data).toEqual({
        oidc: [],
        telegram: { bot_username: 'switchyard_test_bot', bot_id: 123456789 },
        email: true,
        signup: { mode: 'open', allowed_email_domains: [] },
      });
      expect((await h.call('GET', '/auth/session')).status).toBe(401);
    });
  });

  describe(`sign-up modes (${database.name})`, () => {
    it('closed: refuses an unknown identity with a page that says so, and signs in a known one', async () => {
      const h = await startPeopleHarness(database.url, '{mode: closed}');
      try {
        const refused = await h.open(await h.mailLink('stranger@example.com'));
        expect(refused.status).toBe(403);
        expect(refused.sessionCookie).toBeUndefined();
        expect(String(refused.body)).toContain('Sign-up is closed');
        const telegram = await h.call('POST', '/auth/telegram', { body: h.telegramFields(31337) });
        expect(telegram.status).toBe(403);
        expect(telegram.body.error.metadata.reason).toBe('signup_closed');

        // A person the operator added to an account of the admin API signs in.
        const { accountId } = await h.test.createAccount({ name: 'team' });
        const admin = { authorization: `Bearer ${h.test.adminToken}` };
        const added = await h.call('POST', `/admin/accounts/${accountId}/members`, { headers: admin, body: { email: 'Known@Example.com', role: 'admin' } });
        expect(added.status).toBe(201);
        expect(added.body.data).toEqual({ user_id: expect.any(String), email: 'known@example.com', account_id: accountId, role: 'admin' });
        const known = await h.signInByMail('known@example.com');
        expect(known.data.accounts).toEqual([{ id: accountId, name: 'team', role: 'admin' }]);
        expect((await h.call('POST', '/admin/accounts/acc_nope/members', { headers: admin, body: { email: 'x@example.com', role: 'admin' } })).status).toBe(404);
        expect((await h.call('POST', `/admin/accounts/${accountId}/members`, { headers: admin, body: { email: 'x@example.com', role: 'boss' } })).status).toBe(400);
      } finally {
        await h.close();
      }
    });

    it('invite: refuses an unknown identity and says invites admit people', async () => {
      const h = await startPeopleHarness(database.url, '{mode: invite}');
      try {
        const refused = await h.open(await h.mailLink('stranger@example.com'));
        expect(refused.status).toBe(403);
        expect(String(refused.body)).toContain('invitation');
      } finally {
        await h.close();
      }
    });

    it('open with allowed_email_domains: an address elsewhere is refused, one inside signs up', async () => {
      const h = await startPeopleHarness(database.url, '{mode: open, allowed_email_domains: [Example.com]}');
      try {
        const refused = await h.open(await h.mailLink('someone@elsewhere.org'));
        expect(refused.status).toBe(403);
        expect(String(refused.body)).toContain('example.com');
        const inside = await h.signInByMail('someone@example.com');
        expect(inside.data.accounts).toHaveLength(1);
      } finally {
        await h.close();
      }
    });
  });
}
