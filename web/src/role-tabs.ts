import { managesKeys, managesMembers, seesBilling, type Role } from './roles.js';

/** A section of the page (the shell's tab), kept free of JSX so that Node tests can import the rule. */
export interface Tab {
  id: string;
  label: string;
}

/**
 * What each role may open, as the server decides it (src/people/role-policy.ts): owners and
 * admins manage the account (billing, keys, members, alerts, audit log, default providers,
 * messenger); a member also manages the keys it made; every role reads usage, requests and the
 * members. The API refuses the rest anyway; the page does not offer it.
 */
export function tabsFor(role: Role | null): Tab[] {
  const sessions = { id: 'sessions', label: 'Sessions' };
  if (role === null) return [sessions];
  const manages = seesBilling(role);
  const people = managesMembers(role);
  return [
    ...(manages ? [{ id: 'billing', label: 'Billing' }] : []),
    { id: 'usage', label: 'Usage' },
    { id: 'requests', label: 'Requests' },
    ...(managesKeys(role) ? [{ id: 'keys', label: 'Keys' }] : []),
    { id: 'members', label: 'Members' },
    ...(people ? [{ id: 'alerts', label: 'Alerts' }] : []),
    ...(people ? [{ id: 'audit', label: 'Audit log' }] : []),
    ...(manages ? [{ id: 'providers', label: 'Default providers' }] : []),
    { id: 'models', label: 'Models' },
    ...(manages ? [{ id: 'messenger', label: 'Messenger' }] : []),
    sessions,
  ];
}
