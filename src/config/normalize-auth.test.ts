import { describe, expect, it } from 'vitest';
import { parseConfigText } from './load-config.js';
import { normalizeConfig } from './normalize-config.js';
import { readServerConfig } from './read-server-config.js';
import type { ServerConfig } from './types.js';

const catalog = 'providers: []\nmodels: []\n';
const load = (yaml: string, server: Partial<ServerConfig> = {}) =>
  normalizeConfig(parseConfigText(`${catalog}${yaml}`, 'test.yaml', {}), 'test.yaml', { ...readServerConfig({}), ...server });

describe('the auth: and signup: sections', () => {
  it('turns nothing on by default, and sign-up is closed', () => {
    const config = load('');
    expect(config.auth).toEqual({ oidc: [], telegram: { login: false }, email: null });
    expect(config.signup).toEqual({ mode: 'closed', bonusCredits: 0n, allowedEmailDomains: [] });
  });

  it('reads the methods, the bonus in nano-USD and the domains in lower case', () => {
    const config = load(
      'auth:\n  oidc: [{id: kc, name: Keycloak, issuer: "https://id.example.com/realms/x/", client_id: a, client_secret: b}]\n  email: {smtp_url: "smtp://mail:25", from: a@b.c}\nsignup: {mode: open, bonus_credits: 0.5, allowed_email_domains: [Example.COM]}\n',
      { publicUrl: 'https://ai.example.com' },
    );
    expect(config.auth?.oidc).toEqual([{ id: 'kc', name: 'Keycloak', issuer: 'https://id.example.com/realms/x/', client_id: 'a', client_secret: 'b' }]);
    expect(config.auth?.email).toEqual({ smtpUrl: 'smtp://mail:25', from: 'a@b.c' });
    expect(config.signup).toEqual({ mode: 'open', bonusCredits: 500_000_000n, allowedEmailDomains: ['example.com'] });
  });

  it('refuses Telegram login without a bot token, and links without SWITCHYARD_PUBLIC_URL', () => {
    expect(() => load('auth:\n  telegram: {login: true}\n')).toThrow(/auth\.telegram\.login: expected TELEGRAM_BOT_TOKEN/);
    expect(() => load('auth:\n  email: {smtp_url: "smtp://mail:25", from: a@b.c}\n')).toThrow(/SWITCHYARD_PUBLIC_URL/);
    expect(() => load('signup: {mode: sometimes}\n')).toThrow(/signup\.mode/);
    expect(() => load('auth:\n  oidc: [{id: a, name: A, issuer: "https://x.example", client_id: a, client_secret: b}, {id: a, name: B, issuer: "https://y.example", client_id: a, client_secret: b}]\n', { publicUrl: 'https://ai.example.com' })).toThrow(/auth\.oidc\[1\]\.id/);
  });
});
