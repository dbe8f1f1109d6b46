import type { Command } from 'commander';
import pino from 'pino';
import { addCredits } from '../accounts/add-credits.js';
import { createAccount } from '../accounts/create-account.js';
import { createApiKey } from '../accounts/create-api-key.js';
import { setMessengerLink } from '../accounts/set-messenger-link.js';
import { encodeKey } from '../api/keys/encode-key.js';
import { encodeAccount } from '../api/shared/encode-account.js';
import { encodeMovement } from '../api/shared/encode-movements.js';
import { listMovements } from '../billing/db/list-movements.js';
import { listAudit } from '../audit/list-audit.js';
import { systemClock } from '../core/clock.js';
import { createId } from '../core/ids.js';
import { nanoToUsd, usdToNano } from '../core/money.js';
import { adminActor, recordAudit } from '../audit/record-audit.js';
import { readServerConfig } from '../config/read-server-config.js';
import { readTelegramBotUsername } from '../config/read-telegram-config.js';
import { notFound } from '../errors/gateway-error.js';
import { encodeLinkCode, issueLinkCode } from '../messenger/link-codes.js';
import { createStore, migrateToLatest, type Store } from '../store/create-store.js';
import { UsageSummariesBackfill } from '../billing/backfill-usage-summaries.js';
import { findAccount } from '../store/repositories/accounts.js';
import { loadConfig } from '../config/load-config.js';
import { describeAuthSettings } from '../people/describe-auth-settings.js';
import { listUsersPage } from '../people/list-users.js';
import { addMember, encodeAddedMember } from '../people/add-member.js';
import { isMemberRole } from '../people/roles.js';
import { RequestLogMaintenance } from '../billing/request-log-maintenance.js';
import { readRequestLogRetentionDays } from '../config/read-request-log-retention.js';
import { parseUtcDay } from '../api/shared/decode-date-range.js';

/**
 * `switchyard admin …`: the admin API's operations, run straight on the database named by
 * DATABASE_URL, so they work whether or not a server is running. Output is JSON on stdout.
 */
export function registerAdminCommands(program: Command): Command {
  const admin = program.command('admin').description('manage accounts directly in the database (DATABASE_URL)');

  admin
    .command('create-account')
    .description('create an account and print its management API key')
    .option('--name <name>', 'account name', 'default')
    .option('--credits <usd>', 'opening credit in USD')
    .action((options: { name: string; credits?: string }) =>
      withStore(async (store) => {
        const credits = options.credits === undefined ? undefined : parseUsd(options.credits);
        const { account, key } = await createAccount({ store, clock: systemClock, createId }, { name: options.name, credits });
        return { data: encodeAccount(account), key };
      }),
    );

  admin
    .command('add-credits <account-id> <usd>')
    .description('add credits (USD) to an account')
    .action((accountId: string, usd: string) =>
      withStore(async (store) => {
        const account = await addCredits({ store, clock: systemClock, createId }, accountId, parseUsd(usd), 'admin credit');
        return { data: encodeAccount(account) };
      }),
    );

  admin
    .command('set-messenger <account-id> <linked>')
    .description('mark the account\'s messenger link as linked (true) or not (false)')
    .action((accountId: string, linked: string) =>
      withStore(async (store) => {
        if (linked !== 'true' && linked !== 'false') throw new Error('linked must be true or false');
        await setMessengerLink({ store, clock: systemClock }, accountId, linked === 'true');
        return { data: { linked: linked === 'true' } };
      }),
    );

  admin
    .command('link-code <account-id>')
    .description('issue a one-time messenger link code (and t.me deep link when TELEGRAM_BOT_USERNAME is set); replaces the previous one')
    .action((accountId: string) =>
      withStore(async (store) => {
        const issued = await issueLinkCode({ store, clock: systemClock }, accountId, readTelegramBotUsername(process.env));
        return { data: encodeLinkCode(issued) };
      }),
    );

  admin
    .command('show-account <account-id>')
    .description('print an account with its balance and usage')
    .action((accountId: string) =>
      withStore(async (store) => {
        const account = await findAccount(store.db, accountId);
        if (!account) throw notFound(`Account '${accountId}'`);
        return { data: encodeAccount(account) };
      }),
    );

  admin
    .command('audit <account-id>')
    .description("print an account's audit log, newest first: the changes of keys, limits, members, alerts, sessions and money")
    .option('--action <action>', 'one action (key.create) or a family (key)')
    .option('--limit <n>', 'how many (1-500)', '50')
    .option('--cursor <id>', 'the next_cursor of the previous page')
    .action((accountId: string, options: { action?: string; limit: string; cursor?: string }) =>
      withStore(async (store) => {
        if (!(await findAccount(store.db, accountId))) throw notFound(`Account '${accountId}'`);
        const limit = Number(options.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new Error(`--limit: expected an integer from 1 to 500, got "${options.limit}"`);
        if (options.action !== undefined && !/^[a-z_]+(\.[a-z_]+)?$/.test(options.action)) throw new Error(`--action: expected an action such as key.create or a family such as key, got "${options.action}"`);
        const rows = await listAudit(store.db, accountId, { limit: limit + 1, cursor: options.cursor }, { action: options.action });
        const page = rows.slice(0, limit);
        return { data: page, next_cursor: rows.length > limit ? page[page.length - 1].id : null };
      }),
    );

  admin
    .command('transactions <account-id>')
    .description("print an account's payments, refunds, disputes, codes, bonuses and grants, newest first")
    .option('--limit <n>', 'how many (1-500)', '50')
    .option('--cursor <id>', 'the next_cursor of the previous page')
    .action((accountId: string, options: { limit: string; cursor?: string }) =>
      withStore(async (store) => {
        if (!(await findAccount(store.db, accountId))) throw notFound(`Account '${accountId}'`);
        const limit = Number(options.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new Error(`--limit: expected an integer from 1 to 500, got "${options.limit}"`);
        const rows = await listMovements(store.db, accountId, { limit: limit + 1, cursor: options.cursor });
        const page = rows.slice(0, limit);
        return { data: page.map(encodeMovement), next_cursor: rows.length > limit ? page[page.length - 1].id : null };
      }),
    );

  admin
    .command('create-key <account-id>')
    .description('create another API key for an account')
    .option('--name <name>', 'key name', 'key')
    .option('--management', 'make it a management key', false)
    .option('--limit <usd>', 'spending limit in USD')
    .action((accountId: string, options: { name: string; management: boolean; limit?: string }) =>
      withStore(async (store) => {
        if (!(await findAccount(store.db, accountId))) throw notFound(`Account '${accountId}'`);
        const spendLimit = options.limit === undefined ? null : parseUsd(options.limit);
        const { record, secret } = await store.db.transaction().execute(async (trx) => {
          const created = await createApiKey(trx, { clock: systemClock, createId }, { accountId, name: options.name, management: options.management, spendLimit });
          const details = { name: created.record.name, management: created.record.management, limit: spendLimit === null ? null : nanoToUsd(spendLimit) };
          await recordAudit(trx, { id: createId('aud'), accountId, at: created.record.createdAt, actor: adminActor, action: 'key.create', target: created.record.id, ip: null, details });
          return created;
        });
        return { data: encodeKey(record, systemClock.now()), key: secret };
      }),
    );
  admin
    .command('users')
    .description('list the people who sign in to the page, newest first, with their accounts and roles')
    .option('--email <address>', 'only the user of this address')
    .option('--limit <n>', 'users per page (1-500)', '50')
    .option('--cursor <user-id>', 'the next_cursor of the previous page')
    .action((options: { email?: string; limit: string; cursor?: string }) =>
      withStore(async (store) => {
        const limit = Number(options.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new Error(`--limit must be an integer from 1 to 500, got ${options.limit}`);
        return listUsersPage(store.db, { email: options.email, limit, cursor: options.cursor });
      }),
    );

  admin
    .command('add-member <account-id> <email>')
    .description('give the person of this address a role in the account (the user is made if new); how people come in while sign-up is closed')
    .option('--role <role>', 'owner, admin, member or viewer', 'member')
    .action((accountId: string, email: string, options: { role: string }) =>
      withStore(async (store) => {
        if (!isMemberRole(options.role)) throw new Error(`--role must be owner, admin, member or viewer, got ${options.role}`);
        return { data: encodeAddedMember(await addMember({ store, clock: systemClock, createId }, { accountId, email, role: options.role })) };
      }),
    );

  admin
    .command('auth-settings')
    .description('show the sign-in methods and sign-up settings of the config (SWITCHYARD_CONFIG) and environment, without secrets')
    .action(() => {
      try {
        process.stdout.write(`${JSON.stringify({ data: describeAuthSettings(loadConfig()) }, null, 2)}\n`);
      } catch (error) {
        process.stderr.write(`error: ${(error as Error).message}\n`);
        process.exitCode = 1;
      }
    });

  admin
    .command('backfill-usage')
    .description('sum the usage written before the usage summaries existed into them now, and wait until done (serve does it in the background)')
    .action(() => withStore(async (store) => ({ data: await new UsageSummariesBackfill(store).start() })));
  admin
    .command('request-log-maintenance')
    .description('run the request log maintenance once now (serve runs it at start and hourly): on PostgreSQL partition the log by day and make the days ahead; drop what is past the retention')
    .option('--retention-days <days>', 'days kept (default SWITCHYARD_REQUEST_LOG_RETENTION_DAYS; unset: kept forever)')
    .option('--empty-log-from <day>', 'PostgreSQL, a log not yet partitioned and still empty: its day partitions start at this UTC day (YYYY-MM-DD), for a log about to be filled with past days')
    .action((options: { retentionDays?: string; emptyLogFrom?: string }) =>
      withStore(async (store) => {
        const retentionDays = readRequestLogRetentionDays(options.retentionDays === undefined ? process.env : { SWITCHYARD_REQUEST_LOG_RETENTION_DAYS: options.retentionDays });
        const emptyLogFromMs = options.emptyLogFrom === undefined ? undefined : parseUtcDay(options.emptyLogFrom, 'empty-log-from');
        const maintenance = new RequestLogMaintenance({ store, clock: systemClock, logger: pino({ level: 'silent' }) }, { retentionDays, emptyLogFromMs, maxDropsPerRun: Number.POSITIVE_INFINITY });
        return { data: await maintenance.runOnce() };
      }),
    );
  return admin;
}

export async function withStore(action: (store: Store) => Promise<unknown>): Promise<void> {
  const store = await createStore(readServerConfig(process.env).databaseUrl);
  try {
    await migrateToLatest(store);
    const result = await action(store);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    process.exitCode = 1;
  } finally {
    await store.close();
  }
}

export function parseUsd(text: string): bigint {
  const amount = usdToNano(text);
  if (amount <= 0n) throw new Error(`amount must be greater than 0, got ${text}`);
  return amount;
}
