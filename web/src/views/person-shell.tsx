import { useMemo, useState } from 'preact/hooks';
import { callApi, type AccountSession } from '../api.js';
import { ErrorMessage } from '../components/status.js';
import { Shell, useCurrentView } from '../components/shell.js';
import type { Landing } from '../landing.js';
import { tabsFor } from '../role-tabs.js';
import { chooseAccount, rememberAccount, type Membership, type PersonSession } from '../person-session.js';
import { roleNames, seesBilling, setsAutoTopUp } from '../roles.js';
import { AccountAudit } from './account-audit.js';
import { AlertsView } from './alerts-view.js';
import { BillingView } from './billing-view.js';
import { KeysView } from './keys-view.js';
import { MembersView } from './members-view.js';
import { MessengerView } from './messenger-view.js';
import { ModelsView } from './models-view.js';
import { ProvidersView } from './providers-view.js';
import { RequestsView } from './requests-view.js';
import { SessionsView } from './sessions-view.js';
import { UsageView } from './usage-view.js';

/** A person signed in with the cookie session, acting for one of their accounts at a time. */
export function PersonShell({ session, topUp, onSignedOut }: { session: PersonSession; topUp?: Landing['topUp']; onSignedOut: () => void }) {
  const [account, setAccount] = useState<Membership | null>(() => chooseAccount(session));
  // One credential object per account: the views reload when it changes, and only then.
  const token = useMemo<AccountSession>(() => ({ kind: 'session', accountId: account?.id ?? '', csrfToken: session.csrfToken }), [account?.id, session.csrfToken]);
  const tabs = tabsFor(account?.role ?? null);
  const { route, current } = useCurrentView(tabs);
  const [error, setError] = useState<unknown>(null);
  const signOut = async () => {
    setError(null);
    try {
      await callApi(token, 'POST', '/auth/sign-out');
      onSignedOut();
    } catch (caught) {
      setError(caught);
    }
  };
  const { name, email } = session.user;
  const who = name && email && name !== email ? `${name} (${email})` : (name ?? email ?? 'Signed in');
  const switcher =
    session.accounts.length > 1 ? (
      <div class="account-switcher">
        <label for="account-switcher">Account</label>
        <select
          id="account-switcher"
          value={account?.id}
          onChange={(event) => {
            const next = session.accounts.find((membership) => membership.id === (event.target as HTMLSelectElement).value) ?? null;
            if (next) rememberAccount(next.id);
            setAccount(next);
          }}
        >
          {session.accounts.map((membership) => (
            <option key={membership.id} value={membership.id}>
              {membership.name} ({roleNames[membership.role]})
            </option>
          ))}
        </select>
      </div>
    ) : null;
  const manages = account !== null && seesBilling(account.role);
  return (
    <Shell
      title="Switchyard account"
      subtitle={account ? `${who} · ${account.name} · ${roleNames[account.role]}` : who}
      tabs={tabs}
      current={current}
      onSignOut={() => void signOut()}
      toolbar={switcher}
    >
      {error !== null && <ErrorMessage error={error} />}
      {account === null && <p class="status empty">You are signed in, but you are not a member of any account yet. Ask an account owner for an invite.</p>}
      {account && (
        // Keyed by account: a switch starts every view afresh (paging, forms, open details).
        <div key={account.id}>
          {current === 'billing' && <BillingView token={token} topUp={topUp} autoTopUpEditable={setsAutoTopUp(account.role)} />}
          {current === 'usage' && <UsageView token={token} path="/v1/usage" keysPath={manages ? '/v1/keys' : undefined} />}
          {current === 'requests' && <RequestsView token={token} management={manages} route={route} />}
          {current === 'keys' && <KeysView token={token} makesManagementKeys={account.role === 'owner'} />}
          {current === 'members' && <MembersView token={token} role={account.role} userId={session.user.id} />}
          {current === 'alerts' && manages && <AlertsView token={token} />}
          {current === 'audit' && manages && <AccountAudit token={token} path="/v1" changes={0} main />}
          {current === 'providers' && manages && <ProvidersView token={token} />}
          {current === 'models' && <ModelsView token={token} />}
          {current === 'messenger' && manages && <MessengerView token={token} />}
        </div>
      )}
      {current === 'sessions' && <SessionsView token={token} onSignedOut={onSignedOut} />}
    </Shell>
  );
}
