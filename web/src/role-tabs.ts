import { seesBilling, type Role } from './roles.js';

/** A section of the page (the shell's tab), kept free of JSX so that Node tests can import the rule. */
export interface Tab {
  id: string;
  label: string;
}

/**
 * What each role may open, as the server decides it today: owners and admins manage the account
 * (keys, billing, default providers, messenger); members and viewers read usage and requests
 * (§8's members' own keys come with the members API). The API refuses the rest anyway; the page
 * does not offer it.
 */
export function tabsFor(role: Role | null): Tab[] {
  const sessions = { id: 'sessions', label: 'Sessions' };
  if (role === null) return [sessions];
  const manages = seesBilling(role);
  return [
    ...(manages ? [{ id: 'billing', label: 'Billing' }] : []),
    { id: 'usage', label: 'Usage' },
    { id: 'requests', label: 'Requests' },
    ...(manages ? [{ id: 'keys', label: 'Keys' }] : []),
    ...(manages ? [{ id: 'providers', label: 'Default providers' }] : []),
    { id: 'models', label: 'Models' },
    ...(manages ? [{ id: 'messenger', label: 'Messenger' }] : []),
    sessions,
  ];
}
