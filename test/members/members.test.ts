import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/test-databases.js';
import { startMembersHarness, type MembersHarness, type Person } from './members-harness.js';

/**
 * Members and roles (issue 49, scope 2; contract §8): invites, acceptance, what each role may do
 * on the account endpoints, the last owner, and removal ending the member's access.
 */
for (const database of testDatabases()) {
  describe(`members and invites, open sign-up (${database.name})`, () => {
    let m: MembersHarness;
    let owner: Person;
    let counter = 0;
    const fresh = (name: string) => `${name}${(counter += 1)}@example.com`;
    /** A new person who joins the owner's account with `role`. */
    const member = async (role: string): Promise<Person> => {
      const person = await m.signIn(fresh(role));
      const { token } = await m.invite(owner, role);
      return m.join(person, token, owner.accountId);
    };

    beforeAll(async () => {
      m = await startMembersHarness(database.url, 'open');
      owner = await m.signIn('owner@example.com');
    });
    afterAll(() => m?.close());

    it('invites and accepts: a single-use link under the public URL, CSRF required, the member listed, one audit entry each', async () => {
      const created = await m.as(owner, 'POST', '/v1/members/invites', { role: 'viewer' });
      expect(created.status).toBe(201);
      const { id, url, expires_at: expiresAt } = created.body.data;
      expect(url).toMatch(new RegExp(`^${m.h.base}/invites/[A-Za-z0-9_-]{43}$`));
      expect(Date.parse(expiresAt) - m.h.clock.now().getTime()).toBe(7 * 24 * 3600_000);
      const token = url.slice(url.lastIndexOf('/') + 1);

      // The link opens the page (which reads the invite from /auth/invites/{token}).
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      const described = await m.h.call('GET', `/auth/invites/${token}`);
      expect(described.status).toBe(200);
      expect(described.body.data).toMatchObject({ account: { name: 'owner' }, role: 'viewer', email: null, status: 'pending' });
      const pending = await m.as(owner, 'GET', '/v1/members/invites');
      expect(pending.body.data.map((invite: any) => invite.id)).toContain(id);

      const bob = await m.signIn('bob@example.com');
      const withoutCsrf = await m.h.call('POST', `/invites/${token}/accept`, { cookie: bob.cookie });
      expect(withoutCsrf.status).toBe(403);
      expect(withoutCsrf.body.error.code).toBe('forbidden');
      const anonymous = await m.h.call('POST', `/invites/${token}/accept`);
      expect(anonymous.status).toBe(401);
      const accepted = await m.h.call('POST', `/invites/${token}/accept`, { cookie: bob.cookie, headers: { 'x-csrf-token': bob.csrf } });
      expect(accepted.status).toBe(200);
      expect(accepted.body.data).toEqual({ account_id: owner.accountId, role: 'viewer' });

      const again = await m.h.call('POST', `/invites/${token}/accept`, { cookie: owner.cookie, headers: { 'x-csrf-token': owner.csrf } });
      expect(again.status).toBe(400);
      expect(again.body.error.metadata.reason).toBe('used');
      expect((await m.h.call('GET', `/auth/invites/${token}`)).body.data.status).toBe('used');

      const session = await m.h.call('GET', '/auth/session', { cookie: bob.cookie });
      expect(session.body.data.accounts).toContainEqual({ id: owner.accountId, name: 'owner', role: 'viewer' });
      const members = await m.as(owner, 'GET', '/v1/members');
      expect(members.status).toBe(200);
      expect(members.body.next_cursor).toBeNull();
      expect(members.body.data).toContainEqual({ user_id: bob.userId, name: 'bob', email: 'bob@example.com', role: 'viewer', limit: null, limit_reset: null, usage: 0, joined_at: expect.any(String) });
      // Any role reads the members.
      const asViewer = await m.as(bob, 'GET', '/v1/members', undefined, owner.accountId);
      expect(asViewer.status).toBe(200);

      const invites = (await m.audit(owner, 'member.invite')).filter((entry) => entry.target === id);
      expect(invites).toEqual([expect.objectContaining({ actor: { type: 'user', id: owner.userId }, details: { role: 'viewer', email: null } })]);
      const joins = (await m.audit(owner, 'member.join')).filter((entry) => entry.target === bob.userId);
      expect(joins).toEqual([expect.objectContaining({ actor: { type: 'user', id: bob.userId }, details: { role: 'viewer', invite_id: id } })]);
    });

    it('an invite bound to an address is refused to another address, and accepted by its own', async () => {
      const bound = await m.invite(owner, 'member', 'carol@example.com');
      const mallory = await m.signIn('mallory@example.com');
      const refused = await m.h.call('POST', `/invites/${bound.token}/accept`, { cookie: mallory.cookie, headers: { 'x-csrf-token': mallory.csrf } });
      expect(refused.status).toBe(403);
      expect((await m.as(mallory, 'GET', '/v1/members', undefined, owner.accountId)).status).toBe(404);
      const carol = await m.signIn('carol@example.com');
      await m.join(carol, bound.token, owner.accountId);
      expect((await m.as(carol, 'GET', '/v1/members', undefined, owner.accountId)).status).toBe(200);
    });

    it('refuses an expired and a revoked invite; the pending list drops them', async () => {
      const revoked = await m.invite(owner, 'member');
      const withdrawn = await m.as(owner, 'DELETE', `/v1/members/invites/${revoked.id}`);
      expect(withdrawn.status).toBe(200);
      expect((await m.as(owner, 'DELETE', `/v1/members/invites/${revoked.id}`)).status).toBe(404);
      expect((await m.audit(owner, 'member.invite_revoke')).filter((entry) => entry.target === revoked.id)).toHaveLength(1);
      const dave = await m.signIn(fresh('dave'));
      const late = await m.invite(owner, 'member');
      m.h.clock.advance(7 * 24 * 3600_000 + 1000);
      for (const [invite, reason] of [[revoked, 'revoked'], [late, 'expired']] as const) {
        const answer = await m.h.call('POST', `/invites/${invite.token}/accept`, { cookie: dave.cookie, headers: { 'x-csrf-token': dave.csrf } });
        expect(answer.status).toBe(400);
        expect(answer.body.error.metadata.reason).toBe(reason);
      }
      const ids = (await m.as(owner, 'GET', '/v1/members/invites')).body.data.map((invite: any) => invite.id);
      expect(ids).not.toContain(revoked.id);
      expect(ids).not.toContain(late.id);
      expect((await m.as(dave, 'GET', '/v1/members', undefined, owner.accountId)).status).toBe(404);
    });

    it('a viewer cannot create a key (403 forbidden), and reads usage and requests', async () => {
      const viewer = await member('viewer');
      const created = await m.as(viewer, 'POST', '/v1/keys', { name: 'mine' });
      expect(created.status).toBe(403);
      expect(created.body.error.code).toBe('forbidden');
      expect((await m.as(viewer, 'GET', '/v1/keys')).status).toBe(403);
      expect((await m.as(viewer, 'GET', '/v1/usage')).status).toBe(200);
      expect((await m.as(viewer, 'GET', '/v1/requests')).status).toBe(200);
      expect((await m.as(viewer, 'POST', '/v1/members/invites', { role: 'viewer' })).status).toBe(403);
    });

    it('a member creates, sees and revokes only its own keys, and makes no management key', async () => {
      const ownerKey = await m.as(owner, 'POST', '/v1/keys', { name: 'owner key' });
      expect(ownerKey.status).toBe(201);
      const worker = await member('member');
      const own = await m.as(worker, 'POST', '/v1/keys', { name: 'worker key' });
      expect(own.status).toBe(201);
      const listed = await m.as(worker, 'GET', '/v1/keys');
      expect(listed.body.data.map((key: any) => key.id)).toEqual([own.body.data.id]);
      const ownersList = await m.as(owner, 'GET', '/v1/keys');
      expect(ownersList.body.data.map((key: any) => key.id)).toEqual(expect.arrayContaining([own.body.data.id, ownerKey.body.data.id]));

      expect((await m.as(worker, 'PATCH', `/v1/keys/${ownerKey.body.data.id}/limit`, { limit: 1 })).status).toBe(404);
      expect((await m.as(worker, 'DELETE', `/v1/keys/${ownerKey.body.data.id}`)).status).toBe(404);
      expect((await m.as(worker, 'PATCH', `/v1/keys/${own.body.data.id}/limit`, { limit: 2 })).body.data.limit).toBe(2);
      expect((await m.as(worker, 'POST', '/v1/keys', { name: 'escalate', management: true })).status).toBe(403);
      expect((await m.as(worker, 'DELETE', `/v1/keys/${own.body.data.id}`)).status).toBe(200);
      // The owner's key is untouched.
      expect((await m.h.call('GET', '/v1/key', { headers: { authorization: `Bearer ${ownerKey.body.key}` } })).status).toBe(200);
    });

    it('an admin cannot change billing (auto top-up), make or touch owners; it tops up and manages the rest', async () => {
      const admin = await member('admin');
      const settings = { enabled: true, threshold: 5, amount: 10 };
      const refused = await m.as(admin, 'PUT', '/v1/credits/auto-top-up', settings);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('forbidden');
      // The owner passes the role check (and is refused for want of a saved card, not for its role).
      const byOwner = await m.as(owner, 'PUT', '/v1/credits/auto-top-up', settings);
      expect(byOwner.status).not.toBe(403);
      expect((await m.as(admin, 'GET', '/v1/credits/auto-top-up')).status).toBe(200);
      const checkout = await m.as(admin, 'POST', '/v1/credits/checkout', { amount: 10 });
      expect(checkout.status).toBe(200);
      expect((await m.as(admin, 'POST', '/v1/keys', { name: 'admin management', management: true })).status).toBe(403);

      expect((await m.as(admin, 'POST', '/v1/members/invites', { role: 'owner' })).status).toBe(403);
      const target = await member('member');
      expect((await m.as(admin, 'PATCH', `/v1/members/${target.userId}`, { role: 'owner' })).status).toBe(403);
      expect((await m.as(admin, 'PATCH', `/v1/members/${owner.userId}`, { role: 'viewer' })).status).toBe(403);
      expect((await m.as(admin, 'PATCH', '/v1/members/usr_nobody', {})).status).toBe(404);
      expect((await m.as(admin, 'DELETE', `/v1/members/${owner.userId}`)).status).toBe(403);
      const demoted = await m.as(admin, 'PATCH', `/v1/members/${target.userId}`, { role: 'viewer' });
      expect(demoted.status).toBe(200);
      expect(demoted.body.data).toMatchObject({ user_id: target.userId, role: 'viewer' });
      expect((await m.as(target, 'POST', '/v1/keys', { name: 'now a viewer' })).status).toBe(403);
      expect((await m.audit(owner, 'member.role')).filter((entry) => entry.target === target.userId)).toEqual([
        expect.objectContaining({ actor: { type: 'user', id: admin.userId }, details: { from: 'member', to: 'viewer' } }),
      ]);
      // A member of another role changes no one, but may leave.
      expect((await m.as(target, 'PATCH', `/v1/members/${admin.userId}`, { role: 'viewer' })).status).toBe(403);
      expect((await m.as(target, 'DELETE', `/v1/members/${admin.userId}`)).status).toBe(403);
      expect((await m.as(target, 'DELETE', `/v1/members/${target.userId}`)).status).toBe(200);
    });

    it('keeps the last owner: no demotion or removal of it, and two owners demoting each other at once leave one', async () => {
      const solo = await m.signIn(fresh('solo'));
      expect((await m.as(solo, 'PATCH', `/v1/members/${solo.userId}`, { role: 'admin' })).status).toBe(400);
      expect((await m.as(solo, 'DELETE', `/v1/members/${solo.userId}`)).status).toBe(400);
      for (let round = 0; round < 5; round += 1) {
        const first = await m.signIn(fresh('first'));
        const { token } = await m.invite(first, 'owner');
        const second = await m.join(await m.signIn(fresh('second')), token, first.accountId);
        const [a, b] = await Promise.all([
          m.as(first, 'PATCH', `/v1/members/${second.userId}`, { role: 'member' }),
          m.as(second, 'PATCH', `/v1/members/${first.userId}`, { role: 'member' }),
        ]);
        // One wins; the other is refused as the last owner (400), or, when the winner committed
        // before the loser's request was authenticated, as no longer an owner (403).
        expect([a.status, b.status].filter((status) => status === 200)).toHaveLength(1);
        expect([400, 403]).toContain(a.status === 200 ? b.status : a.status);
        const members = (await m.as(a.status === 200 ? first : second, 'GET', '/v1/members')).body.data;
        expect(members.filter((row: any) => row.role === 'owner')).toHaveLength(1);
        const [c, d] = await Promise.all([
          m.as(first, 'DELETE', `/v1/members/${first.userId}`),
          m.as(second, 'DELETE', `/v1/members/${second.userId}`),
        ]);
        // The one still an owner is the last and stays; the other leaves.
        expect([c.status, d.status].sort()).toEqual([200, 400].sort());
      }
    });

    it('keeps one owner when a management key (which passes every role check) demotes both owners at once', async () => {
      for (let round = 0; round < 5; round += 1) {
        const first = await m.signIn(fresh('firstkey'));
        const { token } = await m.invite(first, 'owner');
        const second = await m.join(await m.signIn(fresh('secondkey')), token, first.accountId);
        const key = (await m.as(first, 'POST', '/v1/keys', { name: 'management', management: true })).body.key;
        const asKey = { authorization: `Bearer ${key}` };
        const answers = await Promise.all(
          [first, second].map((person) => m.h.call('PATCH', `/v1/members/${person.userId}`, { headers: asKey, body: { role: 'admin' } })),
        );
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
        const members = (await m.h.call('GET', '/v1/members', { headers: asKey })).body.data;
        expect(members.filter((row: any) => row.role === 'owner')).toHaveLength(1);
      }
    });

    it('removal ends the member’s sessions on the account and its keys’ access at once, and revokes only its keys', async () => {
      const leaving = await member('member');
      const key = await m.as(leaving, 'POST', '/v1/keys', { name: 'to go' });
      const ownerKey = await m.as(owner, 'POST', '/v1/keys', { name: 'stays' });
      const bearer = (secret: string) => ({ headers: { authorization: `Bearer ${secret}` } });
      expect((await m.h.call('GET', '/v1/key', bearer(key.body.key))).status).toBe(200);
      const removed = await m.as(owner, 'DELETE', `/v1/members/${leaving.userId}`);
      expect(removed.status).toBe(200);
      expect(removed.body.data.revoked_keys).toEqual([key.body.data.id]);
      expect((await m.h.call('GET', '/v1/key', bearer(key.body.key))).status).toBe(401);
      expect((await m.h.call('GET', '/v1/key', bearer(ownerKey.body.key))).status).toBe(200);
      const after = await m.as(leaving, 'GET', '/v1/members', undefined, owner.accountId);
      expect(after.status).toBe(404);
      expect((await m.as(owner, 'GET', '/v1/members')).body.data.map((row: any) => row.user_id)).not.toContain(leaving.userId);
      expect((await m.audit(owner, 'member.remove')).filter((entry) => entry.target === leaving.userId)).toEqual([
        expect.objectContaining({ actor: { type: 'user', id: owner.userId }, details: { role: 'member', left: false, revoked_keys: [key.body.data.id] } }),
      ]);
    });
  });

  describe(`invites while sign-up is invite-only (${database.name})`, () => {
    let m: MembersHarness;
    let owner: Person;
    beforeAll(async () => {
      m = await startMembersHarness(database.url, 'invite');
      // The owner comes in by invite to an account the operator made (the admin API's way in).
      const made = await m.h.call('POST', '/admin/accounts', { headers: { authorization: `Bearer ${m.h.test.context.config.server.adminToken}` }, body: { name: 'acme' } });
      const accountId = made.body.data.id;
      const added = await m.h.call('POST', `/admin/accounts/${accountId}/members`, { headers: { authorization: `Bearer ${m.h.test.context.config.server.adminToken}` }, body: { email: 'boss@example.com', role: 'owner' } });
      expect(added.status).toBeLessThan(300);
      owner = { ...(await m.signIn('boss@example.com')), accountId };
    });
    afterAll(() => m?.close());

    it('the operator adds people with one audit entry, and cannot demote the last owner either', async () => {
      const admin = { authorization: `Bearer ${m.h.test.context.config.server.adminToken}` };
      const demote = await m.h.call('POST', `/admin/accounts/${owner.accountId}/members`, { headers: admin, body: { email: 'boss@example.com', role: 'admin' } });
      expect(demote.status).toBe(400);
      expect((await m.audit(owner, 'member.join')).filter((entry) => entry.target === owner.userId)).toEqual([
        expect.objectContaining({ actor: { type: 'admin', id: 'admin' }, details: { role: 'owner' } }),
      ]);
    });

    it('signs up an unknown person on the way to a pending invite (no account, no bonus), and lets them accept', async () => {
      const { token } = await m.invite(owner, 'member');
      const refusedWithout = await m.h.open(await m.h.mailLink('newcomer@example.com', '/'));
      expect(refusedWithout.status).toBe(403);
      const landed = await m.h.open(await m.h.mailLink('newcomer@example.com', `/invites/${token}`));
      expect(landed.status).toBe(303);
      expect(landed.headers.get('location')).toBe(`/invites/${token}`);
      const session = await m.h.call('GET', '/auth/session', { cookie: landed.sessionCookie });
      expect(session.body.data.accounts).toEqual([]);
      const newcomer: Person = { cookie: landed.sessionCookie!, csrf: session.body.csrf_token, userId: session.body.data.user.id, email: 'newcomer@example.com', accountId: owner.accountId };
      await m.join(newcomer, token, owner.accountId);
      expect((await m.h.call('GET', '/auth/session', { cookie: newcomer.cookie })).body.data.accounts).toEqual([{ id: owner.accountId, name: 'acme', role: 'member' }]);
      expect((await m.as(newcomer, 'POST', '/v1/keys', { name: 'k' })).status).toBe(201);
    });

    it('checks the invite at sign-in: a revoked, used or another address’s invite admits no one', async () => {
      const revoked = await m.invite(owner, 'member');
      await m.as(owner, 'DELETE', `/v1/members/invites/${revoked.id}`);
      expect((await m.h.open(await m.h.mailLink('stranger1@example.com', `/invites/${revoked.token}`))).status).toBe(403);
      const bound = await m.invite(owner, 'viewer', 'right@example.com');
      expect((await m.h.open(await m.h.mailLink('wrong@example.com', `/invites/${bound.token}`))).status).toBe(403);
      expect((await m.h.open(await m.h.mailLink('right@example.com', `/invites/${bound.token}`))).status).toBe(303);
      const forged = `/invites/${'A'.repeat(43)}`;
      expect((await m.h.open(await m.h.mailLink('stranger2@example.com', forged))).status).toBe(403);
    });

    it('admits by Telegram too: return_to beside the widget fields names an unbound invite; a bound one needs an address Telegram lacks', async () => {
      const open = await m.invite(owner, 'viewer');
      const bound = await m.invite(owner, 'viewer', 'someone@example.com');
      const refused = await m.h.call('POST', '/auth/telegram', { body: { ...m.h.telegramFields(7001), return_to: `/invites/${bound.token}` } });
      expect(refused.status).toBe(403);
      expect(refused.body.error.metadata.reason).toBe('invite_only');
      const admitted = await m.h.call('POST', '/auth/telegram', { body: { ...m.h.telegramFields(7002), return_to: `/invites/${open.token}` } });
      expect(admitted.status).toBe(200);
      expect(admitted.body.data.accounts).toEqual([]);
      const person: Person = { cookie: admitted.sessionCookie!, csrf: admitted.body.csrf_token, userId: admitted.body.data.user.id, email: '', accountId: owner.accountId };
      await m.join(person, open.token, owner.accountId);
      expect((await m.as(person, 'GET', '/v1/usage')).status).toBe(200);
    });
  });
}
