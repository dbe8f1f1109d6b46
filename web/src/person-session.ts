import { ApiError, request } from './api.js';
import type { Role } from './roles.js';

export type { Role };


export interface Membership {
  id: string;
  name: string;
  role: Role;
}

/** A person signed in with the cookie session (`GET /auth/session`, contract §7). */
export interface PersonSession {
  user: { id: string; name: string | null; email: string | null; telegram_linked: boolean };
  accounts: Membership[];
  csrfToken: string;
}

/**
 * The cookie session, or null when there is none (401). The CSRF token comes in the answer's body
 * (`data.csrf_token`, or beside `data`) or, failing that, in an `x-csrf-token` header.
 */
export async function loadPersonSession(): Promise<PersonSession | null> {
  try {
    const { json, headers } = await request(null, 'GET', '/auth/session');
    const data = json?.data ?? {};
    const csrfToken = String(data.csrf_token ?? json?.csrf_token ?? headers.get('x-csrf-token') ?? '');
    return { user: data.user, accounts: Array.isArray(data.accounts) ? data.accounts : [], csrfToken };
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 404)) return null;
    throw error;
  }
}

const accountKey = 'switchyard.account';

/** The account last chosen in this tab, if the person still belongs to it; else the first they own. */
export function chooseAccount(session: PersonSession): Membership | null {
  let stored: string | null = null;
  try {
    stored = sessionStorage.getItem(accountKey);
  } catch {
    stored = null;
  }
  const rank: Record<Role, number> = { owner: 0, admin: 1, member: 2, viewer: 3 };
  return session.accounts.find((account) => account.id === stored) ?? [...session.accounts].sort((a, b) => rank[a.role] - rank[b.role])[0] ?? null;
}

export function rememberAccount(id: string): void {
  sessionStorage.setItem(accountKey, id);
}

export function forgetAccount(): void {
  sessionStorage.removeItem(accountKey);
}
