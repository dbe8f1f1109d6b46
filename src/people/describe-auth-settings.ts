import type { Config } from '../config/types.js';
import { nanoToUsd } from '../core/money.js';

/**
 * The sign-in and sign-up settings at a glance, for the operator (`GET /admin/auth-settings`,
 * `switchyard admin auth-settings`): what is on and how, without a secret (no client secret, no
 * SMTP password, no bot token).
 */
export function describeAuthSettings(config: Config): Record<string, unknown> {
  const auth = config.auth;
  const publicUrl = config.server.publicUrl ?? null;
  const smtp = auth?.email ? new URL(auth.email.smtpUrl) : undefined;
  return {
    public_url: publicUrl,
    oidc: (auth?.oidc ?? []).map((provider) => ({
      id: provider.id,
      name: provider.name,
      issuer: provider.issuer,
      client_id: provider.client_id,
      redirect_uri: publicUrl ? `${publicUrl}/auth/oidc/${provider.id}/callback` : null,
    })),
    telegram: { login: auth?.telegram.login ?? false, bot_username: config.server.telegram?.botUsername ?? null },
    email: auth?.email && smtp ? { smtp_host: smtp.hostname, smtp_port: smtp.port === '' ? null : Number(smtp.port), from: auth.email.from } : null,
    signup: {
      mode: config.signup?.mode ?? 'closed',
      bonus_credits: nanoToUsd(config.signup?.bonusCredits ?? 0n),
      allowed_email_domains: config.signup?.allowedEmailDomains ?? [],
    },
  };
}
