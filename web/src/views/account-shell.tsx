import { Shell, useCurrentView, type Tab } from '../components/shell.js';
import type { Landing } from '../landing.js';
import type { Session } from '../session.js';
import { AccountAudit } from './account-audit.js';
import { AlertsView } from './alerts-view.js';
import { BillingView } from './billing-view.js';
import { KeysView } from './keys-view.js';
import { MembersView } from './members-view.js';
import { MessengerView } from './messenger-view.js';
import { ModelsView } from './models-view.js';
import { OverviewView } from './overview-view.js';
import { ProvidersView } from './providers-view.js';
import { RequestsView } from './requests-view.js';
import { UsageView } from './usage-view.js';

export function AccountShell({ session, topUp, onSignOut }: { session: Session; topUp?: Landing['topUp']; onSignOut: () => void }) {
  // What a key may see is what the API lets it see: ordinary keys get no key or messenger management.
  const tabs: Tab[] = [
    { id: 'balance', label: 'Balance' },
    // A management key may pay for the account too (§7), so it has the billing view.
    ...(session.management ? [{ id: 'billing', label: 'Billing' }] : []),
    { id: 'usage', label: 'Usage' },
    { id: 'requests', label: 'Requests' },
    ...(session.management ? [{ id: 'keys', label: 'Keys' }] : []),
    // A management key is the owner's credential (§8): the people, alerts and audit log too.
    ...(session.management
      ? [
          { id: 'members', label: 'Members' },
          { id: 'alerts', label: 'Alerts' },
          { id: 'audit', label: 'Audit log' },
        ]
      : []),
    { id: 'providers', label: 'Default providers' },
    { id: 'models', label: 'Models' },
    ...(session.management ? [{ id: 'messenger', label: 'Messenger' }] : []),
  ];
  const { route, current } = useCurrentView(tabs);
  const token = session.token;
  return (
    <Shell
      title="Switchyard account"
      subtitle={session.management ? 'Management key: the whole account' : 'Ordinary key: only this key\u2019s own requests and usage'}
      tabs={tabs}
      current={current}
      onSignOut={onSignOut}
    >
      {current === 'balance' && <OverviewView token={token} />}
      {current === 'billing' && <BillingView token={token} topUp={topUp} />}
      {current === 'usage' && <UsageView token={token} path="/v1/usage" keysPath={session.management ? '/v1/keys' : undefined} />}
      {current === 'requests' && <RequestsView token={token} management={session.management} route={route} />}
      {current === 'keys' && <KeysView token={token} />}
      {current === 'members' && <MembersView token={token} role="owner" userId="" />}
      {current === 'alerts' && <AlertsView token={token} />}
      {current === 'audit' && <AccountAudit token={token} path="/v1" changes={0} main />}
      {current === 'providers' && <ProvidersView token={token} />}
      {current === 'models' && <ModelsView token={token} />}
      {current === 'messenger' && <MessengerView token={token} />}
    </Shell>
  );
}
