import { Shell, useCurrentView, type Tab } from '../components/shell.js';
import type { Session } from '../session.js';
import { AccountsView } from './accounts-view.js';
import { HealthView } from './health-view.js';
import { RedemptionView } from './redemption-view.js';
import { UsersView } from './users-view.js';

const tabs: Tab[] = [
  { id: 'accounts', label: 'Accounts' },
  { id: 'users', label: 'Users' },
  { id: 'health', label: 'Provider health' },
  { id: 'redemption', label: 'Redemption codes' },
];

export function OperatorShell({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const { route, current } = useCurrentView(tabs);
  return (
    <Shell title="Switchyard operator console" subtitle="Signed in with the admin token" tabs={tabs} current={current} onSignOut={onSignOut}>
      {current === 'accounts' && <AccountsView token={session.token} route={route} />}
      {current === 'users' && <UsersView token={session.token} />}
      {current === 'health' && <HealthView token={session.token} />}
      {current === 'redemption' && <RedemptionView token={session.token} />}
    </Shell>
  );
}
