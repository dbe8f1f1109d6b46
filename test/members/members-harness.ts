import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe/fake-stripe.js';
import { startPeopleHarness, type Answer, type PeopleHarness } from '../people/people-harness.js';

/** A signed-in person: their session cookie, its CSRF token, and the account they act for. */
export interface Person {
  cookie: string;
  csrf: string;
  userId: string;
  email: string;
  accountId: string;
}

export interface MembersHarness {
  h: PeopleHarness;
  stripe: FakeStripe;
  /** Signs in by magic link; `accountId` is the person's own account (open sign-up), or '' when they have none. */
  signIn(email: string): Promise<Person>;
  /** A call as `person` acting on `accountId` (their own by default), with the CSRF token. */
  as(person: Person, method: string, path: string, body?: unknown, accountId?: string): Promise<Answer>;
  /** An owner invites `email` (or anyone) with `role` into the owner's account; answers the token. */
  invite(owner: Person, role: string, email?: string): Promise<{ id: string; token: string; url: string }>;
  /** `person` accepts an invite and then acts on `accountId` (the inviter's account). */
  join(person: Person, token: string, accountId: string): Promise<Person>;
  /** The audit entries of an action in an account. */
  audit(owner: Person, action: string): Promise<any[]>;
  close(): Promise<void>;
}

/**
 * The people harness (real app over HTTP, real SMTP for magic links) with payments on, through
 * the official Stripe SDK against the fake Stripe, so that the billing routes exist.
 */
export async function startMembersHarness(databaseUrl: string, mode: 'open' | 'invite'): Promise<MembersHarness> {
  const stripe = await startFakeStripe();
  const signup = `{mode: ${mode}, bonus_credits: 1}
payments:
  stripe: {secret_key: ${stripe.secretKey}, webhook_secret: ${stripe.webhookSecret}, api_base: "${stripe.url}"}`;
  const h = await startPeopleHarness(databaseUrl, signup);
  const harness: MembersHarness = {
    h,
    stripe,
    async signIn(email) {
      const signedIn = await h.signInByMail(email);
      return { cookie: signedIn.cookie, csrf: signedIn.csrf, userId: signedIn.data.user.id, email, accountId: signedIn.data.accounts[0]?.id ?? '' };
    },
    as(person, method, path, body, accountId) {
      return h.call(method, path, { cookie: person.cookie, headers: { 'x-switchyard-account': accountId ?? person.accountId, 'x-csrf-token': person.csrf }, body });
    },
    async invite(owner, role, email) {
      const answer = await harness.as(owner, 'POST', '/v1/members/invites', email === undefined ? { role } : { role, email });
      if (answer.status !== 201) throw new Error(`invite: ${answer.status} ${JSON.stringify(answer.body)}`);
      const url: string = answer.body.data.url;
      return { id: answer.body.data.id, url, token: url.slice(url.lastIndexOf('/') + 1) };
    },
    async join(person, token, accountId) {
      const accepted = await h.call('POST', `/invites/${token}/accept`, { cookie: person.cookie, headers: { 'x-csrf-token': person.csrf } });
      if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${JSON.stringify(accepted.body)}`);
      return { ...person, accountId };
    },
    async audit(owner, action) {
      const answer = await harness.as(owner, 'GET', `/v1/audit?action=${action}`);
      if (answer.status !== 200) throw new Error(`audit: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body.data;
    },
    async close() {
      await h.close();
      await stripe.close();
    },
  };
  return harness;
}
