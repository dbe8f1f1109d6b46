import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type TestOidcProvider } from '../helpers/start-oidc-provider.js';
import { testDatabases } from '../helpers/test-databases.js';
import { startPeopleHarness, type PeopleHarness } from './people-harness.js';

/**
 * OpenID Connect sign-in through the gateway's routes against a real OpenID Provider
 * (oidc-provider): sign-up with the bonus, replayed and forged callbacks, a stolen code with a
 * state of the attacker's own, and the redirect after sign-in.
 */
const accounts = [
  { sub: 'alice', email: 'Alice@Example.com', email_verified: true, name: 'Alice Liddell' },
  { sub: 'bob', email: 'bob@example.com', email_verified: false, name: 'Bob' },
  { sub: 'carol', email: 'carol@example.com', email_verified: true, name: 'Carol' },
];

for (const database of testDatabases()) {
  describe(`OpenID Connect sign-in (${database.name})`, () => {
    let h: PeopleHarness;
    let idp: TestOidcProvider;
    beforeAll(async () => {
      h = await startPeopleHarness(database.url, '{mode: open, bonus_credits: 1}', async (config, base) => {
        idp = await startOidcProvider({ clients: [{ client_id: 'switchyard', client_secret: 'gateway-secret', redirect_uris: [`${base}/auth/oidc/test/callback`] }], accounts });
        config.auth!.oidc = [{ id: 'test', name: 'Test IdP', issuer: idp.issuer, client_id: 'switchyard', client_secret: 'gateway-secret' }];
      });
    });
    afterAll(async () => {
      await h?.close();
      await idp?.close();
    });

    /** Starts a sign-in at the gateway and answers the provider's authorization URL. */
    const start = async (returnTo?: string) => {
      const started = await h.call('GET', `/auth/oidc/test/start${returnTo === undefined ? '' : `?return_to=${encodeURIComponent(returnTo)}`}`);
      expect(started.status).toBe(303);
      return started.headers.get('location')!;
    };
    /** The whole flow for a provider account: the callback URL the provider sends the browser to. */
    const callbackFor = async (login: string, returnTo?: string) => idp.completeAuthorization(await start(returnTo), { login });

    it('signs up with the provider: redirect URI on the public origin, PKCE, the session and the bonus', async () => {
      const authorization = new URL(await start('/app?tab=credits'));
      expect(authorization.origin).toBe(idp.issuer);
      expect(authorization.searchParams.get('redirect_uri')).toBe(`${h.base}/auth/oidc/test/callback`);
      expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
      const callback = await idp.completeAuthorization(authorization.href, { login: 'alice' });
      expect(callback.startsWith(`${h.base}/auth/oidc/test/callback?`)).toBe(true);
      const landed = await h.open(callback);
      expect(landed.status).toBe(303);
      expect(landed.headers.get('location')).toBe('/app?tab=credits');
      const session = await h.call('GET', '/auth/session', { cookie: landed.sessionCookie });
      expect(session.body.data.user).toMatchObject({ name: 'Alice Liddell', email: 'alice@example.com' });
      expect(session.body.data.accounts).toEqual([{ id: expect.any(String), name: 'Alice Liddell', role: 'owner' }]);
      const credits = await h.call('GET', '/v1/credits', { cookie: landed.sessionCookie, headers: { 'x-switchyard-account': session.body.data.accounts[0].id } });
      expect(credits.body.data.total_credits).toBe(1);

      // Signing in again is the same user and account, with no second bonus.
      const again = await h.open(await callbackFor('alice'));
      const second = await h.call('GET', '/auth/session', { cookie: again.sessionCookie });
      expect(second.body.data).toEqual(session.body.data);
      expect((await h.call('GET', '/v1/credits', { cookie: again.sessionCookie, headers: { 'x-switchyard-account': session.body.data.accounts[0].id } })).body.data.total_credits).toBe(1);
      expect((await h.call('GET', '/auth/providers')).body.data.oidc).toEqual([{ id: 'test', name: 'Test IdP', start_url: '/auth/oidc/test/start' }]);
    });

    it('refuses a replayed callback and a forged state, and signs no one in', async () => {
      const callback = await callbackFor('alice');
      expect((await h.open(callback)).status).toBe(303);
      const replayed = await h.open(callback);
      expect(replayed.status).toBe(400);
      expect(replayed.sessionCookie).toBeUndefined();
      expect(String(replayed.body)).toContain('already used');

      // The same authorization request answered again by the provider carries a fresh code: the
      // state it comes back with was used, so it signs no one in either.
      const authorization = await start();
      expect((await h.open(await idp.completeAuthorization(authorization, { login: 'alice' }))).status).toBe(303);
      const sameState = await h.open(await idp.completeAuthorization(authorization, { login: 'bob' }));
      expect(sameState.status).toBe(400);
      expect(sameState.sessionCookie).toBeUndefined();

      const forged = new URL(await callbackFor('alice'));
      forged.searchParams.set('state', 'made-up-state');
      const answer = await h.open(forged.href);
      expect(answer.status).toBe(400);
      expect(answer.sessionCookie).toBeUndefined();
    });

    it("refuses a victim's code delivered with a state of the attacker's own (PKCE binds the code to its start)", async () => {
      const victim = new URL(await callbackFor('alice'));
      const attackerState = new URL(await start()).searchParams.get('state')!;
      const injected = new URL(victim.href);
      injected.searchParams.set('state', attackerState);
      const answer = await h.open(injected.href);
      expect(answer.status).toBe(400);
      expect(answer.sessionCookie).toBeUndefined();
    });

    it('sends a return_to of another origin to /', async () => {
      for (const returnTo of ['https://evil.example/', '//evil.example', '/\\evil.example']) {
        const landed = await h.open(await callbackFor('alice', returnTo));
        expect([returnTo, landed.headers.get('location')]).toEqual([returnTo, '/']);
      }
    });

    it('trusts only a verified email: an unverified one is not the user’s address; a verified one joins its user', async () => {
      const bob = await h.open(await callbackFor('bob'));
      const bobSession = await h.call('GET', '/auth/session', { cookie: bob.sessionCookie });
      expect(bobSession.body.data.user).toMatchObject({ name: 'Bob', email: null });

      const byMail = await h.signInByMail('carol@example.com');
      const carol = await h.open(await callbackFor('carol'));
      const carolSession = await h.call('GET', '/auth/session', { cookie: carol.sessionCookie });
      expect(carolSession.body.data.user.id).toBe(byMail.data.user.id);
      expect(carolSession.body.data.accounts).toEqual(byMail.data.accounts);
    });

    it('shows a page when the person refuses at the provider, and 404 for an unknown provider', async () => {
      const denied = await h.open(await idp.completeAuthorization(await start(), { deny: true }));
      expect(denied.status).toBe(400);
      expect(denied.sessionCookie).toBeUndefined();
      expect((await h.call('GET', '/auth/oidc/nope/start')).status).toBe(404);
    });
  });
}
