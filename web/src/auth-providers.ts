import { request } from './api.js';

/** What `GET /auth/providers` says is on: the sign-in choices and the sign-up mode. */
export interface AuthProviders {
  oidc: Array<{ id: string; name: string }>;
  telegram: { botUsername: string; botId: number } | null;
  email: boolean;
  signUpMode: 'closed' | 'open' | 'invite' | null;
}

/**
 * Reads the list leniently, as the page reads any answer: only the fields it shows, and a missing
 * method is off.
 */
export async function loadAuthProviders(): Promise<AuthProviders> {
  const { json } = await request(null, 'GET', '/auth/providers');
  const data = json?.data ?? {};
  const listed: any[] = Array.isArray(data.oidc) ? data.oidc : [];
  const telegram = data.telegram;
  const bot = typeof telegram === 'object' && telegram !== null && typeof telegram.bot_username === 'string' && typeof telegram.bot_id === 'number' ? telegram : null;
  const mode = data.signup?.mode ?? null;
  return {
    oidc: listed.filter((entry) => typeof entry?.id === 'string').map((entry) => ({ id: entry.id, name: String(entry.name ?? entry.id) })),
    telegram: bot ? { botUsername: bot.bot_username, botId: bot.bot_id } : null,
    email: Boolean(data.email),
    signUpMode: mode === 'closed' || mode === 'open' || mode === 'invite' ? mode : null,
  };
}
