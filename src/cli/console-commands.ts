import type { Command } from 'commander';
import { encodeKeys } from '../api/keys/encode-key.js';
import { encodeAccount } from '../api/shared/encode-account.js';
import { defaultPageSize, toPage } from '../api/shared/pagination.js';
import { buildUsageReport } from '../api/usage/build-usage-report.js';
import { systemClock } from '../core/clock.js';
import { notFound } from '../errors/gateway-error.js';
import { findAccount, listAccounts } from '../store/repositories/accounts.js';
import { listActiveKeys, revokeKey } from '../store/repositories/api-keys.js';
import { withStore } from './admin-commands.js';

/**
 * The operator console's calls on the command line: the same answers as GET /admin/accounts,
 * …/keys, …/usage and DELETE …/keys/{key_id}, run on the database. Provider health lives in a
 * running server's memory, so `provider-health` asks that server over HTTP.
 */
export function registerConsoleCommands(admin: Command): void {
  admin
    .command('list-accounts')
    .description('list accounts, newest first; --search matches an id, part of a name (3+ characters) or a whole name (1-2)')
    .option('--search <text>', 'account id, or part of the name (A-Z case-insensitive; 1-2 characters: the whole name)')
    .option('--limit <n>', 'page size (1-500)', String(defaultPageSize))
    .option('--cursor <id>', 'next_cursor of the previous page')
    .action((options: { search?: string; limit: string; cursor?: string }) =>
      withStore(async (store) => {
        const limit = parseLimit(options.limit);
        const rows = await listAccounts(store.db, store.dialect, { search: options.search?.trim() || undefined, limit: limit + 1, cursor: options.cursor });
        const page = toPage(rows, limit, (account) => account.id);
        return { data: page.data.map(encodeAccount), next_cursor: page.next_cursor };
      }),
    );

  admin
    .command('list-keys <account-id>')
    .description('list the active keys of an account (never their secrets)')
    .action((accountId: string) =>
      withStore(async (store) => {
        if (!(await findAccount(store.db, accountId))) throw notFound(`Account '${accountId}'`);
        const keys = await listActiveKeys(store.db, accountId, { limit: 500 });
        return { data: await encodeKeys(store.db, accountId, keys, systemClock.now()) };
      }),
    );

  admin
    .command('revoke-key <account-id> <key-id>')
    .description('revoke a key; running servers stop accepting it within milliseconds on PostgreSQL (the database notifies them), and within their key-cache lifetime (10 s) in any case')
    .action((accountId: string, keyId: string) =>
      withStore(async (store) => {
        if (!(await revokeKey(store.db, accountId, keyId, systemClock.now().toISOString()))) throw notFound(`Key '${keyId}'`);
        return { data: { id: keyId, revoked: true } };
      }),
    );

  admin
    .command('usage <account-id>')
    .description('spending of an account by day, model, provider and key (default: the last 30 days)')
    .option('--from <YYYY-MM-DD>', 'first UTC day')
    .option('--to <YYYY-MM-DD>', 'last UTC day')
    .action((accountId: string, options: { from?: string; to?: string }) =>
      withStore(async (store) => {
        if (!(await findAccount(store.db, accountId))) throw notFound(`Account '${accountId}'`);
        return { data: await buildUsageReport(store.db, { accountId, nowMs: systemClock.now().getTime() }, options) };
      }),
    );

  admin
    .command('provider-health')
    .description('circuit state, latency and error rate per endpoint, from a running server (SWITCHYARD_ADMIN_TOKEN)')
    .option('--url <url>', 'the server', `http://${process.env.HOST || '127.0.0.1'}:${process.env.PORT || '8080'}`)
    .action(async (options: { url: string }) => {
      const token = process.env.SWITCHYARD_ADMIN_TOKEN;
      if (!token) return fail('SWITCHYARD_ADMIN_TOKEN is not set');
      try {
        const response = await fetch(new URL('/admin/providers/health', options.url), { headers: { authorization: `Bearer ${token}` } });
        const body = (await response.json()) as { error?: { message?: string } };
        if (!response.ok) return fail(body.error?.message ?? `HTTP ${response.status}`);
        process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
      } catch (error) {
        fail(`cannot reach ${options.url}: ${(error as Error).message}`);
      }
    });
}

function parseLimit(text: string): number {
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new Error(`--limit must be an integer from 1 to 500, got ${text}`);
  return limit;
}

function fail(message: string): void {
  process.stderr.write(`error: ${message}\n`);
  process.exitCode = 1;
}
